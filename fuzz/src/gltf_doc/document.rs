//! The document a spec describes, and what the builder knows of it
//! ([`Info`]: parents, non-uniform scales, each animation's first and last
//! values): the nodes with the long chain and the extra links, the skin,
//! and the animations ([`animation`]).

use serde_json::{Value, json};

use super::super::gltf_build::{Builder, Override};
use super::animation::animation;
use super::spec::{DocSpec, Small, quat, scale};

/// What the builder knows of the document it made.
pub(super) struct Info {
    pub(super) nodes: usize,
    parent: Vec<Option<usize>>,
    pub(super) non_uniform: bool,
    /// A target animated twice in one animation (glTF forbids it), or by a
    /// reused sampler whose first value is not tracked: no comparison.
    pub(super) oracle_off: bool,
    /// Per animation, node -> first value of its channels at time 0.
    pub(super) first: Vec<Vec<Override>>,
    /// Per animation, node -> last value of its channels (what they hold
    /// from their last key on).
    pub(super) last: Vec<Vec<Override>>,
    /// Per animation, the latest last key time of its channels.
    pub(super) end: Vec<f32>,
}

impl Info {
    /// Nodes that are not joints but are ancestors of one (the document
    /// parsed, so the nodes form a forest): one pass up from each joint,
    /// stopping at a node already marked.
    pub(super) fn helpers(&self, is_joint: &[bool]) -> usize {
        let mut above = vec![false; self.nodes];
        for j in (0..self.nodes).filter(|&j| is_joint[j]) {
            let mut a = self.parent[j];
            while let Some(p) = a {
                if above[p] {
                    break;
                }
                above[p] = true;
                a = self.parent[p];
            }
        }
        (0..self.nodes)
            .filter(|&n| above[n] && !is_joint[n])
            .count()
    }
}

/// The document `spec` describes (its nodes, skin and up to 6
/// animations), and what the builder knows of it.
pub(super) fn build(spec: &DocSpec) -> (Builder, Info) {
    let mut b = Builder::new();
    let tree = nodes(spec);
    let n = tree.nodes.len();
    for v in tree.nodes {
        b.node(v);
    }
    if let Some(skin) = &spec.skin {
        // Each node once (a node listed twice is refused, which
        // tests/suite/gltf.rs covers; here it would hide every other check).
        let mut listed = vec![false; n];
        let mut joints: Vec<usize> = Vec::new();
        let every = spec.joint_every.max(1) as usize;
        let chosen = skin.iter().take(64).map(|&j| j as usize % n);
        for j in chosen.chain(tree.chain.iter().step_by(every).copied()) {
            if !listed[j] {
                listed[j] = true;
                joints.push(j);
            }
        }
        if !joints.is_empty() {
            b.push("skins", json!({"joints": joints}));
        }
    }
    let mut info = Info {
        nodes: n,
        parent: tree.parent,
        non_uniform: tree.non_uniform,
        oracle_off: false,
        first: Vec::new(),
        last: Vec::new(),
        end: Vec::new(),
    };
    let mut pool = Vec::new();
    for anim in spec.animations.iter().take(6) {
        animation(&mut b, anim, &mut pool, &mut info);
    }
    (b, info)
}

/// The nodes a spec describes, before they are added.
struct Nodes {
    nodes: Vec<Value>,
    parent: Vec<Option<usize>>,
    /// The long chain's nodes.
    chain: Vec<usize>,
    non_uniform: bool,
}

fn nodes(spec: &DocSpec) -> Nodes {
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut children: Vec<Vec<usize>> = Vec::new();
    let mut non_uniform = false;
    let mut nodes = Vec::new();
    for (i, n) in spec.nodes.iter().take(48).enumerate() {
        let mut v = json!({});
        if n.named {
            v["name"] = json!(format!("n{i}"));
        }
        if let Some(t) = n.t {
            v["translation"] = json!(t.map(Small::get));
        }
        if let Some(r) = n.r {
            v["rotation"] = json!(quat(r));
        }
        if let Some(s) = n.s {
            let s = scale(s);
            non_uniform |= s[0] != s[1] || s[1] != s[2];
            v["scale"] = json!(s);
        }
        let p = (i > 0 && n.parent >= 32).then(|| n.parent as usize % i);
        nodes.push(v);
        parent.push(p);
        children.push(Vec::new());
        if let Some(p) = p {
            children[p].push(i);
        }
    }
    if nodes.is_empty() {
        nodes.push(json!({}));
        parent.push(None);
        children.push(Vec::new());
    }
    let mut chain = Vec::new();
    let mut above = spec.chain_at as usize % nodes.len();
    for _ in 0..(spec.chain as usize).saturating_sub(223) * 64 {
        let i = nodes.len();
        nodes.push(json!({"translation": [0.0, spec.chain_t.get(), 0.0]}));
        parent.push(Some(above));
        children.push(Vec::new());
        children[above].push(i);
        chain.push(i);
        above = i;
    }
    let n = nodes.len();
    let extra = if spec.mischief < 32 { 4 } else { 0 };
    for &(a, c) in spec.extra.iter().take(extra) {
        let (a, c) = (a as usize % n, c as usize % n);
        children[a].push(c);
        parent[c] = Some(a); // the oracle is only asked of documents that parse
    }
    for (i, v) in nodes.iter_mut().enumerate() {
        if !children[i].is_empty() {
            v["children"] = json!(children[i]);
        }
    }
    Nodes {
        nodes,
        parent,
        chain,
        non_uniform,
    }
}
