//! `POST /api/toolkit/ai/describe-item`: the piece's English name and kind, read by the AI reader.

super::image_lane!(
    "/api/toolkit/ai/describe-item",
    describe_item,
    studio_core::api::DescribeItemResponse,
    "Name a piece and its kind (AI reader; 1 token)",
    "Multipart `image` (12 MB). Answers {ok, nameEn (at most 40 characters), kind (an asset kind; anything else \
     reads as clothes), spent}. Codes: 400 IMAGE_REQUIRED, EMPTY_IMAGE, BAD_FORM; 401; 402 AI_NEEDS_BILLING (no \
     billing account) or INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN (viewer); 413 IMAGE_TOO_LARGE \
     (maxMb); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED (nothing held)."
);
