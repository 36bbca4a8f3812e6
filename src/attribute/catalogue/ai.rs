//! Catalogue rows: AI model APIs.

use super::*;

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
    // ------------------------------------------------------------------ AI
    provider! {
        vendor: "openai", name: "OpenAI", category: Ai, quota: Rate,
        hosts: ["api.openai.com"],
        family: "x-ratelimit-limit/-remaining/-reset-requests and -tokens (Go durations: 1s, 6m0s)",
        source: "https://platform.openai.com/docs/guides/error-codes",
        markers: [
            ("openai.headers", 0.9, Any(&[Has("openai-organization"), Has("openai-processing-ms"), Has("openai-version"), Has("openai-project")]), "",
             "openai-* headers come from OpenAI's API itself"),
            ("openai.body", 0.8, Any(&[All(&[Body("rate limit reached for"), Body("organization")]), Body("platform.openai.com"), Body("insufficient_quota")]), "",
             "OpenAI rate-limit / quota error message"),
        ],
        messages: [],
    },
    provider! {
        vendor: "anthropic", name: "Anthropic", category: Ai, quota: Rate,
        hosts: ["api.anthropic.com"],
        family: "anthropic-ratelimit-requests/-tokens/-input-tokens/-output-tokens-limit/-remaining/-reset (RFC 3339), retry-after",
        source: "https://docs.claude.com/en/api/errors",
        markers: [
            ("anthropic.headers", 0.95, Any(&[NamePrefix("anthropic-ratelimit-"), Has("anthropic-organization-id")]), "",
             "anthropic-ratelimit-* / anthropic-organization-id come from Anthropic's API"),
            ("anthropic.body", 0.85, Any(&[Body("\"type\":\"rate_limit_error\""), Body("enforced_spend_limit_reached")]), "",
             "Anthropic error schema (type rate_limit_error)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "azure-openai", name: "Azure OpenAI", category: Ai, quota: Rate,
        hosts: ["*.openai.azure.com", "*.cognitiveservices.azure.com", "*.services.ai.azure.com"],
        family: "x-ratelimit-remaining-requests/-tokens, retry-after and retry-after-ms (milliseconds)",
        source: "https://learn.microsoft.com/en-us/answers/questions/2140040/requests-to-the-chatcompletions-create-operation-u",
        markers: [
            ("azure-openai.quota-link", 0.85, Body("aka.ms/oai/quotaincrease"), "",
             "Azure OpenAI's throttle message links its quota-increase form"),
        ],
        messages: [
            ("azure-openai.msg.token-rate", 0.9, "have exceeded token rate limit of your current", TOKENS, NOS,
             "the deployment's tokens-per-minute allocation"),
            ("azure-openai.msg.operation", 0.8, "Operation under Azure OpenAI API version", NOQ, NOS,
             "Azure OpenAI's throttle message names the operation and API version"),
        ],
    },
    provider! {
        vendor: "google-gemini", name: "Google Gemini API", category: Ai, quota: Rate,
        hosts: ["generativelanguage.googleapis.com"],
        family: "none in headers; google.rpc QuotaFailure (quotaId …PerMinute… / …PerDay…) and RetryInfo in the body",
        source: "https://ai.google.dev/gemini-api/docs/rate-limits",
        markers: [
            ("google-gemini.docs-link", 0.85, Any(&[Body("ai.google.dev/gemini-api/docs/rate-limits"), Body("generativelanguage.googleapis.com/generate_content")]), "",
             "the Gemini API's quota error points at its own rate-limit page / quota metric"),
        ],
        messages: [],
    },
    provider! {
        vendor: "google-vertex-ai", name: "Google Vertex AI", category: Ai, quota: Rate,
        hosts: ["*-aiplatform.googleapis.com", "aiplatform.googleapis.com"],
        family: "none in headers; RESOURCE_EXHAUSTED with the quota metric in the message",
        source: "https://cloud.google.com/vertex-ai/generative-ai/docs/provisioned-throughput/error-code-429",
        markers: [
            ("google-vertex-ai.quota-metric", 0.8, Body("quota exceeded for aiplatform.googleapis.com/"), "",
             "Vertex AI names its quota metric (aiplatform.googleapis.com/…_per_minute…)"),
        ],
        messages: [
            ("google-vertex-ai.msg.shared", 0.7, "Resource exhausted, please try again later.", RATE, NOS,
             "pay-as-you-go: the shared pool had no capacity for the request (not your quota)"),
            ("google-vertex-ai.msg.provisioned", 0.85, "Exceeded the Provisioned Throughput", RATE, NOS,
             "requests beyond the purchased Provisioned Throughput"),
        ],
    },
    provider! {
        vendor: "mistral", name: "Mistral AI", category: Ai, quota: Rate,
        hosts: ["api.mistral.ai", "codestral.mistral.ai"],
        family: "x-ratelimit-limit/-remaining-requests and -tokens; Retry-After on 429",
        source: "https://docs.mistral.ai/deployment/ai-studio/tier",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "huggingface", name: "Hugging Face", category: Ai, quota: Rate,
        hosts: ["huggingface.co", "api-inference.huggingface.co", "router.huggingface.co", "*.hf.space", "*.endpoints.huggingface.cloud"],
        family: "RateLimit / RateLimit-Policy (IETF) on the Hub; none documented for Inference",
        source: "https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.2/discussions/108",
        markers: [
            ("huggingface.pricing-link", 0.8, Body("huggingface.co/pricing"), "", "Hugging Face's limit message sends the caller to its pricing page"),
        ],
        messages: [
            ("huggingface.msg.free-usage", 0.9, "You reached free usage limit (reset hourly)", RATE, KEY,
             "the free Inference API allowance per token, reset hourly"),
        ],
    },
    provider! {
        vendor: "openrouter", name: "OpenRouter", category: Ai, quota: Rate,
        hosts: ["openrouter.ai"],
        family: "X-RateLimit-Limit/-Remaining/-Reset on the error response",
        source: "https://openrouter.ai/docs/api_reference/limits",
        markers: [
            ("openrouter.provider-metadata", 0.6, All(&[Body("\"metadata\""), Body("\"provider_name\"")]), "",
             "OpenRouter wraps an upstream provider's error with metadata.provider_name"),
        ],
        messages: [],
    },
    provider! {
        vendor: "cohere", name: "Cohere", category: Ai, quota: Rate,
        hosts: ["api.cohere.com", "api.cohere.ai"],
        family: "none documented; per-endpoint requests per minute, trial keys 1,000 calls a month",
        source: "https://docs.cohere.com/docs/rate-limits",
        markers: [],
        messages: [
            ("cohere.msg.per-minute", 0.85, "You are past the per minute request limit", RATE, NOS, "the endpoint's requests-per-minute limit"),
            ("cohere.msg.trial-key", 0.85, "You are using a Trial key, which is limited to", RATE, KEY, "the trial key's per-minute limit"),
            ("cohere.msg.trial-tokens", 0.85, "trial token rate limit exceeded", TOKENS, KEY, "the trial key's tokens-per-minute limit"),
        ],
    },
    provider! {
        vendor: "aws-bedrock", name: "Amazon Bedrock", category: Ai, quota: Rate,
        hosts: ["bedrock-runtime.*.amazonaws.com", "bedrock.*.amazonaws.com", "bedrock-agent-runtime.*.amazonaws.com"],
        family: "none; x-amzn-ErrorType: ThrottlingException, requests- and tokens-per-minute quotas per model and region",
        source: "https://repost.aws/knowledge-center/bedrock-throttling-error",
        markers: [],
        messages: [
            ("aws-bedrock.msg.requests", 0.85, "Too many requests, please wait before trying again", RATE, NOS, "the model's requests-per-minute quota"),
            ("aws-bedrock.msg.request-rate", 0.85, "Your request rate is too high. Reduce the frequency of requests", RATE, NOS, "the model's request-rate quota"),
            ("aws-bedrock.msg.tokens", 0.85, "Too many tokens, please wait before trying again", TOKENS, NOS, "the model's tokens-per-minute quota"),
        ],
    },
    provider! {
        vendor: "groq", name: "Groq", category: Ai, quota: Rate,
        hosts: ["api.groq.com"],
        family: "x-ratelimit-limit/-remaining/-reset-requests (per day) and -tokens (per minute); retry-after on 429",
        source: "https://console.groq.com/docs/rate-limits",
        markers: [
            ("groq.docs-link", 0.9, Body("console.groq.com/docs/rate-limits"), "", "Groq's rate-limit error links its own rate-limit page"),
        ],
        messages: [],
    },
    provider! {
        vendor: "deepseek", name: "DeepSeek API", category: Ai, quota: Concurrency,
        hosts: ["api.deepseek.com"],
        family: "none; no per-user rate limit, but concurrency limits per account and model under load",
        source: "https://platform.deepseek.com/api-docs/quick_start/rate_limit",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "replicate", name: "Replicate", category: Ai, quota: Rate,
        hosts: ["api.replicate.com"],
        family: "none; 600 prediction creations and 3,000 other requests per minute, stricter as prepaid credit runs low",
        source: "https://replicate.com/docs/topics/predictions/rate-limits",
        markers: [],
        messages: [
            ("replicate.msg.throttled", 0.85, "Request was throttled. Your rate limit resets in", RATE, KEY, "the account's requests per minute"),
        ],
    },
    provider! {
        vendor: "xai", name: "xAI API", category: Ai, quota: Rate,
        hosts: ["api.x.ai"],
        family: "per-model requests per second and tokens per minute per team, by spend tier",
        source: "https://docs.x.ai/developers/rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "together", name: "Together AI", category: Ai, quota: Rate,
        hosts: ["api.together.xyz", "api.together.ai"],
        family: "per-model requests and tokens per minute per account tier",
        source: "https://docs.together.ai/docs/rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "perplexity", name: "Perplexity API", category: Ai, quota: Rate,
        hosts: ["api.perplexity.ai"],
        family: "requests per minute per model, set by the account's usage tier (cumulative credit purchases)",
        source: "https://docs.perplexity.ai/guides/usage-tiers",
        markers: [],
        messages: [],
    },
];
