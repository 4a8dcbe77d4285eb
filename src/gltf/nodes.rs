//! The node tree in linear passes (issue 21, defect 2: the walks up from
//! every node were quadratic on a chain): each node's parent, cycles, a
//! parent-first order of every node, the skin's joints in skeleton order
//! with their parent joints, and the helper nodes (not joints, but above a
//! joint) whose transforms are folded into the joints below them (defect
//! 6). Every pass visits each node or each child link once.

use ::gltf::json;

use super::{err, error};
use crate::error::Result;
use crate::reference::{Kform, Quat, Vec3, kform_mul};

/// "No node" in the `u32` node links below.
pub(super) const NONE: u32 = u32::MAX;

/// Parents and a parent-first order of every node of a document.
pub(super) struct Tree {
    /// Each node's parent, [`NONE`] for a root.
    pub(super) parent: Vec<u32>,
    /// Every node, each after its parent.
    pub(super) order: Vec<u32>,
}

/// The node tree of `root`, refusing a node that is the child of two
/// nodes, or of itself through a cycle. Linear in nodes and child links.
pub(super) fn tree(root: &json::Root) -> Result<Tree> {
    let n = root.nodes.len();
    if n >= NONE as usize {
        return err("nodes", format!("{n} nodes; at most {}", NONE - 1));
    }
    let mut parent = vec![NONE; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for (k, c) in node.children.iter().flatten().enumerate() {
            let c = c.value();
            if parent[c] != NONE {
                return err(
                    format!("nodes[{i}].children[{k}]"),
                    format!(
                        "node {c} is already a child of node {} (the node tree must be a forest)",
                        parent[c]
                    ),
                );
            }
            parent[c] = i as u32;
        }
    }
    // Depth first from the roots: a node not reached is in a cycle or below one.
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<u32> = (0..n as u32)
        .rev()
        .filter(|&i| parent[i as usize] == NONE)
        .collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        if let Some(children) = &root.nodes[i as usize].children {
            stack.extend(children.iter().rev().map(|c| c.value() as u32));
        }
    }
    if order.len() < n {
        // Walk up from a node not reached until a node repeats: that one is
        // on the cycle. Linear: each node is stamped once.
        let mut reached = vec![false; n];
        for &i in &order {
            reached[i as usize] = true;
        }
        let start = reached.iter().position(|r| !r).unwrap_or(0);
        let mut seen = vec![false; n];
        let mut a = start;
        while !seen[a] && parent[a] != NONE {
            seen[a] = true;
            a = parent[a] as usize;
        }
        return err(
            format!("nodes[{a}]"),
            "the node tree has a cycle through this node",
        );
    }
    Ok(Tree { parent, order })
}

/// The skeleton's joints and the helper nodes folded into them.
pub(super) struct Joints {
    /// Each joint's node, in skeleton order (parent-first: depth first from
    /// the roots, roots and children in the skin's order).
    pub(super) nodes: Vec<usize>,
    /// Each joint's place in the skin's list (for its inverse bind matrix).
    pub(super) slot: Vec<usize>,
    /// Each joint's parent joint, -1 for a root.
    pub(super) parents: Vec<i32>,
    /// Each node's joint, [`NONE`] for a node that is not one.
    pub(super) joint_of: Vec<u32>,
    /// Each node's helper (an index into `helpers`), [`NONE`] for a node
    /// that is not one.
    pub(super) helper_of: Vec<u32>,
    /// Nodes that are not joints but are ancestors of one, parent-first.
    pub(super) helpers: Vec<Helper>,
    /// Each joint's fold: the helper just above it (whose `through`
    /// transform it is folded under), or [`NONE`].
    pub(super) fold: Vec<u32>,
}

/// A node that is not a joint but has one below it (48 bytes: a chain of
/// a million helpers takes 48 MB).
pub(super) struct Helper {
    /// Its node.
    pub(super) node: u32,
    /// The helper just above it, [`NONE`] when its parent is a joint or it
    /// has none.
    pub(super) up: u32,
    /// The rest transforms of the helpers from the joint above (or the
    /// root) down to and including it, multiplied: what a joint right
    /// below it is folded under at rest.
    through: Trs,
}

impl Helper {
    /// See the field `through`.
    pub(super) fn through(&self) -> Kform {
        let t = self.through;
        Kform {
            pos: t.pos,
            rot: t.rot,
            scl: t.scl,
            ..Kform::IDENTITY
        }
    }
}

/// A transform without the velocities of a [`Kform`].
#[derive(Clone, Copy)]
struct Trs {
    pos: Vec3,
    rot: Quat,
    scl: Vec3,
}

/// The skeleton of `members` (a skin's joints in its order, or every node)
/// on `tree`: joints parent-first, each joint's parent the nearest ancestor
/// that is a member, and the helpers between and above them with their
/// rest transforms folded. Refuses a member listed twice, and a helper
/// whose transform cannot be folded (not finite, not a rotation, or a
/// non-uniform scale).
pub(super) fn joints(doc: &::gltf::Document, tree: &Tree, members: &[usize]) -> Result<Joints> {
    let n = tree.parent.len();
    let mut member = vec![NONE; n];
    for (k, &m) in members.iter().enumerate() {
        if member[m] != NONE {
            return err(
                format!("skins[0].joints[{k}]"),
                format!("node {m} is listed twice"),
            );
        }
        member[m] = k as u32;
    }
    // Each node's nearest ancestor that is a member, parent-first.
    let mut up = vec![NONE; n];
    for &i in &tree.order {
        let p = tree.parent[i as usize];
        if p != NONE {
            up[i as usize] = if member[p as usize] != NONE {
                p
            } else {
                up[p as usize]
            };
        }
    }
    let slot = skeleton_order(members, &member, &up);
    let nodes: Vec<usize> = slot.iter().map(|&k| members[k]).collect();
    let mut joint_of = vec![NONE; n];
    for (j, &m) in nodes.iter().enumerate() {
        joint_of[m] = j as u32;
    }
    let parents: Vec<i32> = nodes
        .iter()
        .map(|&m| match up[m] {
            NONE => -1,
            p => joint_of[p as usize] as i32,
        })
        .collect();
    drop(up);
    let (helpers, helper_of) = helpers(doc, tree, &member)?;
    let fold = nodes
        .iter()
        .map(|&m| match tree.parent[m] {
            NONE => NONE,
            p => helper_of[p as usize],
        })
        .collect();
    Ok(Joints {
        nodes,
        slot,
        parents,
        joint_of,
        helper_of,
        helpers,
        fold,
    })
}

/// The members (by their place in the skin) depth first from the roots,
/// roots and children in skin order, given each node's place among the
/// members (`member`) and its nearest member ancestor (`up`). The member
/// tree's children are one list cut by offsets (no list per node).
fn skeleton_order(members: &[usize], member: &[u32], up: &[u32]) -> Vec<usize> {
    let mut start = vec![0usize; members.len() + 1];
    let mut roots = Vec::new();
    for (k, &m) in members.iter().enumerate() {
        match up[m] {
            NONE => roots.push(k),
            p => start[member[p as usize] as usize + 1] += 1,
        }
    }
    for k in 0..members.len() {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut kids = vec![0usize; members.len() - roots.len()];
    for (k, &m) in members.iter().enumerate() {
        if up[m] != NONE {
            let s = member[up[m] as usize] as usize;
            kids[fill[s]] = k;
            fill[s] += 1;
        }
    }
    let mut slot = Vec::with_capacity(members.len());
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(k) = stack.pop() {
        slot.push(k);
        stack.extend(kids[start[k]..start[k + 1]].iter().rev());
    }
    slot
}

/// The helpers (nodes that are not members, with a member below them:
/// found child-first) parent-first with their folds, and each node's
/// helper index.
fn helpers(doc: &::gltf::Document, tree: &Tree, member: &[u32]) -> Result<(Vec<Helper>, Vec<u32>)> {
    let n = tree.parent.len();
    let mut below = vec![false; n];
    for &i in tree.order.iter().rev() {
        let i = i as usize;
        let p = tree.parent[i];
        if p != NONE && (member[i] != NONE || below[i]) {
            below[p as usize] = true;
        }
    }
    let mut helper_of = vec![NONE; n];
    let mut helpers: Vec<Helper> = Vec::new();
    for &i in &tree.order {
        let i = i as usize;
        if member[i] != NONE || !below[i] {
            continue;
        }
        let p = tree.parent[i];
        let up = if p == NONE {
            NONE
        } else {
            helper_of[p as usize]
        };
        let rest = node_rest(doc, i)?;
        uniform(rest.scl, i, doc.as_json())?;
        let k = match up {
            NONE => rest,
            h => kform_mul(helpers[h as usize].through(), rest),
        };
        helper_of[i] = helpers.len() as u32;
        helpers.push(Helper {
            node: i as u32,
            up,
            through: Trs {
                pos: k.pos,
                rot: k.rot,
                scl: k.scl,
            },
        });
    }
    Ok((helpers, helper_of))
}

/// A node's name for messages: `nodes[4] ("Armature")`.
pub(super) fn node_path(root: &json::Root, i: usize) -> String {
    match root.nodes.get(i).and_then(|n| n.name.as_deref()) {
        Some(name) => format!("nodes[{i}] ({name:?})"),
        None => format!("nodes[{i}]"),
    }
}

/// Refuses a helper's scale that is not uniform: glTF composes a node's
/// scale with the rotations below it as a matrix (a shear once a rotation
/// follows), which a joint's translation, rotation and scale cannot hold.
pub(super) fn uniform(s: Vec3, node: usize, root: &json::Root) -> Result<()> {
    let m = s.x.abs().max(s.y.abs()).max(s.z.abs());
    let spread = (s.x - s.y)
        .abs()
        .max((s.y - s.z).abs())
        .max((s.x - s.z).abs());
    if spread <= 1e-6 * m {
        return Ok(());
    }
    Err(error(
        node_path(root, node),
        format!(
            "this node is not a joint of the skin but lies above one, and its scale ({}, {}, {}) is not uniform: it cannot be folded into the joints below it (glTF would shear them); make it a joint of the skin, or apply its scale",
            s.x, s.y, s.z
        ),
    ))
}

fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// A node's own transform (a matrix decomposed by the `gltf` crate),
/// refusing one that is not finite or whose rotation is zero.
pub(super) fn node_rest(doc: &::gltf::Document, i: usize) -> Result<Kform> {
    let path = node_path(doc.as_json(), i);
    let Some(node) = doc.nodes().nth(i) else {
        return err(path, "no such node");
    };
    let (t, r, s) = node.transform().decomposed();
    if !finite3(t) || !finite3(s) || !r.iter().all(|x| x.is_finite()) {
        return err(path, "its transform is not finite");
    }
    Ok(Kform {
        pos: Vec3::new(t[0], t[1], t[2]),
        rot: unit_quat(r, &path)?,
        scl: Vec3::new(s[0], s[1], s[2]),
        ..Kform::IDENTITY
    })
}

/// A glTF `(x, y, z, w)` rotation as a unit [`Quat`], refusing a zero one.
pub(super) fn unit_quat(r: [f32; 4], path: &str) -> Result<Quat> {
    let n = (r.iter().map(|x| x * x).sum::<f32>()).sqrt();
    if !(n.is_finite() && n > 1e-6) {
        return err(path, format!("rotation {r:?} is not a unit quaternion"));
    }
    Ok(Quat::new(r[3] / n, r[0] / n, r[1] / n, r[2] / n))
}
