//! serde (feature `serde`): skeletons and clips round-trip bit for bit, and
//! deserializing validates as the constructors do.
#![cfg(feature = "serde")]

use kineform::{Clip, Skeleton, data};

#[test]
fn skeleton_and_clip_round_trip_bit_for_bit() {
    let b = data::default_clip();
    let s = serde_json::to_string(&b.skeleton).unwrap();
    assert!(s.starts_with(r#"{"parents":[-1,0,1,"#), "{}", &s[..40]);
    let sk: Skeleton = serde_json::from_str(&s).unwrap();
    assert_eq!(sk, b.skeleton);
    let c = serde_json::to_string(&b.clip).unwrap();
    let clip: Clip = serde_json::from_str(&c).unwrap();
    // f32 through JSON: serde_json prints the shortest text that reads back
    // as the same f32, so the clip is equal bit for bit.
    assert_eq!(clip, b.clip);
    let bits = |c: &Clip| -> Vec<u32> {
        c.rotations()
            .iter()
            .flat_map(|q| q.to_array().map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(&clip), bits(&b.clip));
    // Quaternions are named fields, w included: no order to guess.
    assert!(
        c.contains(r#""rot":[{"w":"#),
        "{}",
        &c[c.find("\"rot\"").unwrap()..][..40]
    );
}

#[test]
fn deserializing_validates() {
    // A parent that is not smaller than its child.
    let e = serde_json::from_str::<Skeleton>(r#"{"parents":[-1,2,1],"names":["a","b","c"]}"#)
        .unwrap_err();
    assert!(e.to_string().contains("skeleton joint 1"), "{e}");
    let e = serde_json::from_str::<Skeleton>(r#"{"parents":[-1],"names":[]}"#).unwrap_err();
    assert!(e.to_string().contains("names"), "{e}");
    // Arrays shorter than frames x joints; a frame time of zero.
    let zero = r#"{"x":0,"y":0,"z":0}"#;
    let one = r#"{"x":1,"y":1,"z":1}"#;
    let q = r#"{"w":1,"x":0,"y":0,"z":0}"#;
    let clip = |frames: usize, ft: f32, n: usize| {
        format!(
            r#"{{"frames":{frames},"joints":1,"frame_time":{ft},"pos":[{p}],"rot":[{r}],"scl":[{s}]}}"#,
            p = vec![zero; n].join(","),
            r = vec![q; n].join(","),
            s = vec![one; n].join(",")
        )
    };
    assert!(serde_json::from_str::<Clip>(&clip(2, 0.1, 2)).is_ok());
    let e = serde_json::from_str::<Clip>(&clip(3, 0.1, 2)).unwrap_err();
    assert!(
        e.to_string().contains("clip positions: expected length 3"),
        "{e}"
    );
    let e = serde_json::from_str::<Clip>(&clip(2, 0.0, 2)).unwrap_err();
    assert!(e.to_string().contains("frame_time"), "{e}");
}
