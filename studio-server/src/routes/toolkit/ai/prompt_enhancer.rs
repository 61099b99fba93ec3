//! `POST /api/toolkit/ai/prompt-enhancer`: a better prompt and notes on what changed.

super::json_lane!(
    "/api/toolkit/ai/prompt-enhancer",
    prompt_enhancer,
    studio_core::api::PromptEnhancerRequest,
    studio_core::api::PromptEnhancerResponse,
    "Improve an image-model prompt (AI reader; 1 token)",
    "JSON {prompt (required, at most 4,000 characters), intent}. The house's brand clause informs the rewrite. \
     Answers {ok, improved, notes (at most 8), spent}. Codes: 400 BAD_JSON, PROMPT_REQUIRED, TOO_LONG; 401; 402 \
     AI_NEEDS_BILLING (need, spendable); 403 FORBIDDEN (viewer); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 \
     AI_NOT_CONFIGURED."
);
