//! The AI reader's work and the AI utility lanes: charged reads of library assets (reads.rs:
//! read_model, read_build), classification on upload (classify.rs), the lane pipeline and its
//! signed results (lanes.rs), the lanes that look at an image (vision.rs), the lanes that
//! answer pixels (pixels.rs) and the text tools (text.rs). Every paid one holds its token
//! through the ledger's hold helpers before the work and releases it on any failure.

pub(crate) mod classify;
pub(crate) mod lanes;
pub(crate) mod pixels;
pub(crate) mod reads;
pub(crate) mod text;
pub(crate) mod vision;

crate::studio::view! {
    /// The AI domain (lanes, reads, vision, text, upload classification): `studio.ai()`.
    Ai over LaneStore
}
