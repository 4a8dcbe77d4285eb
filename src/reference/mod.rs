//! The scalar reference path: plain f32 code that mirrors the articles.
//!
//! Conventions (issue "Foundation"): the article's snake_case names and
//! argument order; `eps` default arguments are constants (`EPS_*`), not
//! parameters; in-out arguments (`float&`, `vec3&`, `quat&`) are plain inputs
//! and the function returns their new values as a tuple in argument order;
//! where the C++ overloads one name for several types the article's own type
//! keeps the name and the others add `_vec3` / `_quat`; pose operators keep
//! the article's order with outputs first as `&mut Pose`.
//!
//! Every function is re-exported here, so `kineform::reference::quat_mul`
//! reads like the article. [`crate::lanes`] holds the same functions over
//! eight lanes, file for file.

pub mod angular;
pub mod blend;
pub mod cost;
pub mod deadblend;
pub mod heading;
pub mod inertialize;
pub mod joint;
pub mod kform;
pub mod looping;
pub mod math;
pub mod pose;
pub mod procedural;
pub mod quat;
pub mod sample;
pub mod spring;
pub mod tracking;

pub use angular::*;
pub use blend::*;
pub use cost::*;
pub use deadblend::*;
pub use heading::*;
pub use inertialize::*;
pub use joint::*;
pub use kform::*;
pub use looping::*;
pub use math::*;
pub use pose::*;
pub use procedural::*;
pub use sample::*;
pub use spring::*;
pub use tracking::*;
