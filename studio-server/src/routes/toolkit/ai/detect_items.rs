//! `POST /api/toolkit/ai/detect-items`: the pieces in an image and their boxes in the raw
//! stored pixel matrix, read by the AI reader (never guessed without one).

super::image_lane!(
    "/api/toolkit/ai/detect-items",
    detect_items,
    studio_core::api::DetectItemsResponse,
    "Find the pieces in an image (AI reader; 1 token)",
    "Multipart `image` (12 MB). Answers {ok, items [{label, box [ymin, xmin, ymax, xmax] 0-1000, approximate}], \
     spent}; the boxes are in the raw stored pixel matrix, without EXIF orientation. Codes: 400 IMAGE_REQUIRED, \
     EMPTY_IMAGE, BAD_FORM; 401; 402 INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN (viewer); 413 \
     IMAGE_TOO_LARGE (maxMb); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED (nothing held)."
);
