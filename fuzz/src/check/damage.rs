//! Damaged copies of real BVH files for the `bvh_parse` smoke test:
//! [`mutate`] and its damages.

/// A damaged copy of a real file: `base` with one to three mutations drawn
/// from `seed`: truncated, a byte changed, a line duplicated or deleted, a
/// number replaced by an extreme one (0, -1, 2^64 - 1, 1e39, 3e38, nan,
/// 99999999999), or a motion line duplicated with `Frames` raised to match
/// (which parses).
pub fn mutate(base: &[u8], seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rnd = move |n: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as usize % n.max(1)
    };
    let mut d = base.to_vec();
    for _ in 0..1 + rnd(3) {
        if d.is_empty() {
            break;
        }
        match rnd(6) {
            0 => d.truncate(rnd(d.len())),
            1 => {
                let at = rnd(d.len());
                d[at] ^= 1 + rnd(255) as u8;
            }
            2 | 3 => line_copied_or_cut(&mut d, &mut rnd),
            4 => number_replaced(&mut d, &mut rnd),
            _ => one_more_frame(&mut d),
        }
    }
    d
}

/// Where each line of `d` starts.
fn line_starts(d: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            d.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&i| i < d.len())
        .collect()
}

/// A line drawn from `d`, duplicated or deleted.
fn line_copied_or_cut(d: &mut Vec<u8>, rnd: &mut impl FnMut(usize) -> usize) {
    let starts = line_starts(d);
    let k = rnd(starts.len());
    let (a, b) = (starts[k], starts.get(k + 1).copied().unwrap_or(d.len()));
    if rnd(2) == 0 {
        let line = d[a..b].to_vec();
        d.splice(b..b, line);
    } else {
        d.drain(a..b);
    }
}

/// A number drawn from `d` (none where `d` has no digit) replaced by an
/// extreme one.
fn number_replaced(d: &mut Vec<u8>, rnd: &mut impl FnMut(usize) -> usize) {
    let digits: Vec<usize> = (0..d.len()).filter(|&i| d[i].is_ascii_digit()).collect();
    if digits.is_empty() {
        return;
    }
    let mut a = digits[rnd(digits.len())];
    while a > 0 && (d[a - 1].is_ascii_digit() || d[a - 1] == b'.') {
        a -= 1;
    }
    let mut b = a;
    while b < d.len() && (d[b].is_ascii_digit() || d[b] == b'.') {
        b += 1;
    }
    let with = [
        "0",
        "-1",
        "18446744073709551615",
        "1e39",
        "3e38",
        "nan",
        "99999999999",
    ];
    d.splice(a..b, with[rnd(with.len())].bytes());
}

/// One more frame: the last motion line again, Frames + 1 (nothing where
/// `d` has no `Frames:` count).
fn one_more_frame(d: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(d).into_owned();
    let Some(fa) = text.find("Frames:") else {
        return;
    };
    let fb = fa + text[fa..].find(['\r', '\n']).unwrap_or(text.len() - fa);
    let Ok(n) = text[fa + 7..fb].trim().parse::<u64>() else {
        return;
    };
    let body = text.trim_end();
    let last = body[body.rfind('\n').map_or(0, |i| i + 1)..].to_string();
    let mut t = format!("{}Frames: {}{}", &text[..fa], n + 1, &text[fb..]);
    t.truncate(t.trim_end().len());
    t.push('\n');
    t.push_str(&last);
    t.push('\n');
    *d = t.into_bytes();
}
