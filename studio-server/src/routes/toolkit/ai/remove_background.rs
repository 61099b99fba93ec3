//! `POST /api/toolkit/ai/remove-background`: the subject cut from its ground on the local
//! provider (or the hosted model `STUDIO_FAL_CUTOUT_MODEL` names), saved in the library.

super::image_lane!(
    "/api/toolkit/ai/remove-background",
    remove_background,
    studio_core::api::RemoveBackgroundResponse,
    "Cut the subject from its ground (local, or hosted when configured; 1 token; saved in the library)",
    "Multipart `image` (12 MB). Answers {url, spent, assetId}: an RGBA PNG of the whole frame, transparent where \
     the ground was, filed as a new asset (kind clothes, tool remove-background). The mask, local or from the \
     hosted model `STUDIO_FAL_CUTOUT_MODEL` names, passes the subject gate first. Codes: 400 NO_IMAGE, \
     EMPTY_IMAGE, BAD_FORM; 401; 402 INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN (viewer); 413 \
     IMAGE_TOO_LARGE (maxMb); 422 SUBJECT_NOT_FOUND (no clear subject: what the gate measured; nothing \
     charged); 502 REMOVE_BG_FAILED (the hosted model failed, or the cutout could not be kept; nothing charged)."
);
