//! `POST /api/toolkit/ai/extract-character`: the face's fields, only when a face is seen.

super::image_lane!(
    "/api/toolkit/ai/extract-character",
    extract_character,
    studio_core::api::ExtractCharacterResponse,
    "Read a face's character (AI reader; 1 token)",
    "Multipart `image` (12 MB). Answers {ok, faceDetected, fields {age, skin, eyes, hair, extras}, spent}; never \
     invents: faceDetected is false with every field empty when no face is seen. Codes: 400 IMAGE_REQUIRED, \
     EMPTY_IMAGE, BAD_FORM; 401; 402 INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN (viewer); 413 \
     IMAGE_TOO_LARGE (maxMb); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED (nothing held)."
);
