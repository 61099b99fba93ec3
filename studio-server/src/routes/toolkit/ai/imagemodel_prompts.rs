//! `POST /api/toolkit/ai/imagemodel-prompts`: shot prompts for a description.

super::json_lane!(
    "/api/toolkit/ai/imagemodel-prompts",
    imagemodel_prompts,
    studio_core::api::ShotPromptsRequest,
    studio_core::api::ShotPromptsResponse,
    "Image-model prompts for a shoot (AI reader; 1 token)",
    "JSON {description (required, at most 2,000 characters), direction, count (1-12, default 4)}. The house's \
     brand clause informs the prompts. Answers {ok, shots [{label, prompt}] (exactly count), spent}. Codes: 400 \
     BAD_JSON, DESCRIPTION_REQUIRED, BAD_COUNT (max), TOO_LONG; 401; 402 AI_NEEDS_BILLING (need, spendable); 403 \
     FORBIDDEN (viewer); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED."
);
