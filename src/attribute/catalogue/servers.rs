//! Catalogue rows: widely deployed server software that answers 429 itself, wherever it is
//! installed (no host of its own). Each row is the product's documented or source-code
//! signature: a header it sends on every response or its own error object.

use super::*;

/// Kubernetes' API server writes `http.Error(w, "Too many requests, please try again later.",
/// 429)` (text/plain) from its max-in-flight and priority-and-fairness filters, with
/// Retry-After; express-rate-limit's default message is the same sentence as text/html.
pub(crate) const KUBE_INFLIGHT: M = All(&[
    BodyIs("too many requests, please try again later."),
    Value("content-type", "text/plain"),
    Has("retry-after"),
]);

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
    provider! {
        vendor: "elasticsearch", name: "Elasticsearch", category: SelfHosted, quota: Concurrency,
        hosts: [],
        family: "none; the error object's type and status 429 in the JSON body",
        source: "https://www.elastic.co/guide/en/elasticsearch/reference/current/modules-threadpool.html",
        markers: [
            ("elasticsearch.product-header", 0.85, Value("x-elastic-product", "elasticsearch"), "",
             "X-elastic-product: Elasticsearch, which Elasticsearch 7.14 and later send on every REST response (server/src/main/java/org/elasticsearch/rest/RestController.java)"),
        ],
        messages: [
            ("elasticsearch.msg.rejected", 0.8, "es_rejected_execution_exception", CONC, NOS,
             "a thread pool's queue (write, search) or indexing pressure is full: too much work in flight on the node, not a rate (EsRejectedExecutionException, github.com/elastic/elasticsearch issue 69868)"),
            ("elasticsearch.msg.circuit-breaker", 0.8, "circuit_breaking_exception", UNKNOWN, NOS,
             "a circuit breaker tripped: the memory the requests in hand would take, neither a rate nor an allowance (https://www.elastic.co/guide/en/elasticsearch/reference/current/circuit-breaker.html)"),
        ],
    },
    provider! {
        vendor: "opensearch", name: "OpenSearch", category: SelfHosted, quota: Concurrency,
        hosts: [],
        family: "none; the error object's type and status 429 in the JSON body",
        source: "https://opensearch.org/docs/latest/install-and-configure/configuring-opensearch/thread-pool-settings/",
        markers: [],
        messages: [
            ("opensearch.msg.rejected", 0.8, "\"type\":\"rejected_execution_exception\"", CONC, NOS,
             "OpenSearchRejectedExecutionException (the Elasticsearch fork drops its prefix from the type): a thread pool's queue or indexing pressure is full"),
        ],
    },
    provider! {
        vendor: "matrix", name: "Matrix homeservers (Synapse, Dendrite, Conduit)", category: SelfHosted, quota: Rate,
        hosts: [],
        family: "none; retry_after_ms in the error object (Retry-After since spec v1.10)",
        source: "https://spec.matrix.org/latest/client-server-api/#rate-limiting",
        markers: [],
        messages: [
            ("matrix.msg.limit-exceeded", 0.85, "\"errcode\":\"M_LIMIT_EXCEEDED\"", RATE, USER,
             "the client-server API's standard error for too many requests in a short time (per user or IP), with retry_after_ms"),
        ],
    },
    provider! {
        vendor: "kubernetes", name: "Kubernetes API server", category: SelfHosted, quota: Concurrency,
        hosts: [],
        family: "Retry-After; X-Kubernetes-PF-FlowSchema-UID / -PriorityLevel-UID from API Priority and Fairness",
        source: "https://kubernetes.io/docs/concepts/cluster-administration/flow-control/",
        markers: [
            ("kubernetes.apf-headers", 0.85, Any(&[Has("x-kubernetes-pf-flowschema-uid"), Has("x-kubernetes-pf-prioritylevel-uid")]), "",
             "API Priority and Fairness stamps the flow schema and priority level it classified the request under on the API server's responses"),
            ("kubernetes.max-inflight", 0.8, KUBE_INFLIGHT, "",
             "the API server's max-in-flight and priority-and-fairness filters refuse with http.Error(\"Too many requests, please try again later.\", 429) and Retry-After (staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go)"),
            ("kubernetes.status", 0.8, All(&[Body("\"kind\":\"status\""), Body("\"reason\":\"toomanyrequests\"")]), "",
             "a metav1.Status object with reason TooManyRequests: the API server's own error"),
        ],
        messages: [
            ("kubernetes.msg.storage-init", 0.8, "storage is (re)initializing", UNKNOWN, RESOURCE,
             "the watch cache of this resource is (re)initializing after a restart: the resource is not ready yet, not a quota (apiserver/pkg/storage/cacher)"),
            ("kubernetes.msg.eviction-pdb", 0.8, "would violate the pod's disruption budget", UNKNOWN, RESOURCE,
             "the Eviction API refuses while a PodDisruptionBudget allows no more disruptions: a state of the pods, not a quota (https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/)"),
        ],
    },
];
