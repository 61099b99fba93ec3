//! `POST /api/toolkit/ai/extract-build`: the body's fields from a full-length photograph.

super::image_lane!(
    "/api/toolkit/ai/extract-build",
    extract_build,
    studio_core::api::ExtractBuildResponse,
    "Read a body's build from a full-length photograph (AI reader; 1 token)",
    "Multipart `image` (12 MB). Answers {ok, figureDetected, fields {height, build, presence, posture, hands}, \
     spent}; never invents: a field is empty when unseen, and figureDetected is false with every field empty for \
     anything but a full-length figure. Codes: 400 IMAGE_REQUIRED, EMPTY_IMAGE, BAD_FORM; 401; 402 \
     INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN (viewer); 413 IMAGE_TOO_LARGE (maxMb); 502 AI_FAILED, \
     AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED (nothing held)."
);
