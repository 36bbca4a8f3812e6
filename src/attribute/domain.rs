//! The vendor of an API the catalogue does not know, from its host: a 429 the origin sent is the
//! API owner's limit, and the host's registrable domain (the Public Suffix List) names the
//! owner. On a platform's shared domain (a suffix in the list's private section, where each
//! customer gets a subdomain: `*.herokuapp.com`, `*.workers.dev`), the owner named is the
//! platform. Lower confidence than a catalogue match, and never for a CDN or proxy verdict
//! (the engine's `decide.rs` applies it only when the API answered).

/// A vendor read from the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostVendor {
    /// The slug: the registrable domain's first label (`acme` of `api.acme.co.uk`), or the
    /// platform's.
    pub slug: String,
    /// The registrable domain it was read from (`acme.co.uk`), or the platform's suffix.
    pub domain: String,
    /// The host is on a platform's shared domain: the slug names the platform.
    pub platform: bool,
}

/// Platforms' shared suffixes whose owner's name is not their suffix's first label: the
/// catalogue's slug for the platform. Any other private suffix is named by its first
/// registrable label (`herokuapp.com` would be `herokuapp`, hence its row).
const PLATFORMS: &[(&str, &str)] = &[
    ("herokuapp.com", "heroku"),
    ("herokudns.com", "heroku"),
    ("workers.dev", "cloudflare"),
    ("pages.dev", "cloudflare"),
    ("azurewebsites.net", "azure"),
    ("azurecontainerapps.io", "azure"),
    ("azurestaticapps.net", "azure"),
    ("cloudapp.net", "azure"),
    ("appspot.com", "google"),
    ("run.app", "google"),
    ("cloudfunctions.net", "google"),
    ("web.app", "google"),
    ("firebaseapp.com", "google"),
    ("vercel.app", "vercel"),
    ("netlify.app", "netlify"),
    ("fly.dev", "fly"),
    ("onrender.com", "render"),
    ("up.railway.app", "railway"),
    ("github.io", "github"),
    ("ondigitalocean.app", "digitalocean"),
    ("digitaloceanspaces.com", "digitalocean"),
];

/// Registrable domains on which a cloud runs its own services' endpoints (each service a
/// subdomain, `dashscope.aliyuncs.com`, `cvm.tencentcloudapi.com`): the cloud is the owner,
/// not the domain's first label, which is no brand. From each cloud's endpoint documentation.
const CLOUD_SERVICE_DOMAINS: &[(&str, &str)] = &[
    // https://docs.aws.amazon.com/general/latest/gr/rande.html
    ("amazonaws.com", "aws"),
    ("amazonaws.com.cn", "aws"),
    ("api.aws", "aws"),
    ("on.aws", "aws"),
    // https://www.alibabacloud.com/help/en/sdk/product-overview/endpoints
    ("aliyuncs.com", "alibaba-cloud"),
    // https://www.tencentcloud.com/document/api/213/33224 (endpoints)
    ("tencentcloudapi.com", "tencent-cloud"),
    ("myqcloud.com", "tencent-cloud"),
    // https://www.volcengine.com/docs/6369/67269 (endpoints)
    ("volcengineapi.com", "volcengine"),
    ("volces.com", "volcengine"),
    // https://cloud.baidu.com/doc/Reference/s/Jjwvz2e3p (service domains)
    ("baidubce.com", "baidu-cloud"),
    // https://developer.huaweicloud.com/intl/en-us/endpoint
    ("myhuaweicloud.com", "huawei-cloud"),
    // https://docs.oracle.com/iaas/api/#/en/iaas/20160918/ (regional endpoints)
    ("oraclecloud.com", "oracle-cloud"),
    // https://learn.microsoft.com/azure/storage/common/storage-account-overview#standard-endpoints
    ("windows.net", "azure"),
    ("azure.com", "azure"),
    ("azure.net", "azure"),
    // https://cloud.ibm.com/docs/overview?topic=overview-locations (service endpoints)
    ("appdomain.cloud", "ibm-cloud"),
    ("googleapis.com", "google"),
];

/// Names reserved for examples and local use (RFC 2606, RFC 6761): they name nobody.
const RESERVED: &[&str] = &["example.com", "example.net", "example.org"];

/// A registrable domain whose name is only a generic word for a service (`api.shop`,
/// `app.io`) names no owner.
const GENERIC: &[&str] = &[
    "api",
    "apis",
    "app",
    "apps",
    "www",
    "web",
    "service",
    "services",
    "gateway",
    "server",
    "host",
    "cloud",
    "internal",
    "local",
    "localhost",
    "test",
    "dev",
    "staging",
    "prod",
];

/// The vendor the host names, or `None` for an IP address, a name under no public suffix
/// (`localhost`, `svc.cluster.local`, `corp.internal`) or a reserved example domain.
pub fn host_vendor(host: &str) -> Option<HostVendor> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() || host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok() {
        return None;
    }
    let suffix = psl::suffix(host.as_bytes()).filter(|s| s.is_known())?;
    let suffix = std::str::from_utf8(suffix.as_bytes()).ok()?.to_string();
    let private = psl::suffix(host.as_bytes()).and_then(|s| s.typ()) == Some(psl::Type::Private);
    if private {
        return platform(&suffix);
    }
    let domain = psl::domain_str(&host)?.to_string();
    let reserved = RESERVED.contains(&domain.as_str())
        || ["test", "example", "invalid", "localhost"].contains(&suffix.as_str());
    if reserved {
        return None;
    }
    if let Some((d, cloud)) = CLOUD_SERVICE_DOMAINS.iter().find(|(d, _)| *d == domain) {
        return Some(HostVendor {
            slug: (*cloud).to_string(),
            domain: (*d).to_string(),
            platform: true,
        });
    }
    let label = domain.split('.').next()?;
    if GENERIC.contains(&label) {
        return None;
    }
    Some(HostVendor {
        slug: brand(label, &suffix),
        domain,
        platform: false,
    })
}

/// The owner's name in a registrable label: the whole label, as the brand is written
/// (`rapidapi`, `weatherapi`, `exchangerate-api`, `whatsapp`: a product word such as `api`,
/// `hq` or `app` is part of the name when it is part of the domain); only a label of one or
/// two characters is no name on its own and keeps its suffix, as the catalogue's slugs do for
/// such names (`z.ai` → `z-ai`, like `checkout-com`).
fn brand(label: &str, suffix: &str) -> String {
    if label.len() <= 2 {
        return format!("{label}-{}", suffix.replace('.', "-"));
    }
    without_service_word(label).to_string()
}

/// Words a company appends to its name to make the domain of one of its services
/// (`cloudflarestorage`, `googleusercontent`, `amazonservices`, `wasabisys`): not part of the
/// owner's name. Not `api` or `app`, which are part of many brands (`rapidapi`, `whatsapp`).
const SERVICE_WORDS: &[&str] = &[
    "usercontent",
    "storage",
    "services",
    "systems",
    "sys",
    "static",
    "assets",
    "cdn",
];

/// Fewest letters of a name left before a service word or product code: shorter rests
/// (`gene` of `genesys`, `web` of `webservices`) are the whole brand's start, not a name.
const NAME_MIN: usize = 5;

/// A label that is a name followed by a service word ([`SERVICE_WORDS`]) or a product code of
/// one letter and one digit (`backblazeb2`: Backblaze's B2) names the name, when at least
/// [`NAME_MIN`] letters of it are left; any other label is the name whole.
fn without_service_word(label: &str) -> &str {
    let rest = |n: usize| &label[..label.len() - n];
    let named = |r: &str| r.len() >= NAME_MIN && r.bytes().all(|b| b.is_ascii_alphabetic());
    if let Some(w) = SERVICE_WORDS
        .iter()
        .find(|w| label.ends_with(*w) && named(rest(w.len())))
    {
        return rest(w.len());
    }
    let b = label.as_bytes();
    let code =
        b.len() >= 2 && b[b.len() - 1].is_ascii_digit() && b[b.len() - 2].is_ascii_alphabetic();
    if code && named(rest(2)) {
        return rest(2);
    }
    label
}

/// The platform that owns a private (shared) suffix: its row in [`PLATFORMS`], else the first
/// label of the suffix's own registrable domain under the public (ICANN) rules.
fn platform(suffix: &str) -> Option<HostVendor> {
    // A cloud's service domain whose subdomains the list marks as shared (S3 buckets, API
    // Gateway names under amazonaws.com, Azure Storage accounts) is the cloud's too.
    let known = PLATFORMS
        .iter()
        .chain(CLOUD_SERVICE_DOMAINS)
        .find(|(s, _)| suffix == *s || suffix.ends_with(&format!(".{s}")));
    if let Some((s, slug)) = known {
        return Some(HostVendor {
            slug: (*slug).to_string(),
            domain: (*s).to_string(),
            platform: true,
        });
    }
    // Drop labels from the left until the rest is a public suffix: one more label is the
    // platform's own registrable domain (`workers.dev` under `dev`).
    let labels: Vec<&str> = suffix.split('.').collect();
    (1..labels.len()).find_map(|i| {
        let rest = labels[i..].join(".");
        let s = psl::suffix(rest.as_bytes())?;
        let icann = s.typ() == Some(psl::Type::Icann) && s.as_bytes() == rest.as_bytes();
        icann.then(|| HostVendor {
            slug: labels[i - 1].to_string(),
            domain: labels[i - 1..].join("."),
            platform: true,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slug(h: &str) -> Option<(String, bool)> {
        host_vendor(h).map(|v| (v.slug, v.platform))
    }

    #[test]
    fn registrable_domain_names_the_owner() {
        assert_eq!(slug("api.acme.io"), Some(("acme".into(), false)));
        assert_eq!(
            slug("api.example-corp.co.uk"),
            Some(("example-corp".into(), false))
        );
        assert_eq!(slug("API.Kombo.Dev."), Some(("kombo".into(), false)));
        assert_eq!(
            host_vendor("a.b.acme.com.au").map(|v| v.domain),
            Some("acme.com.au".into())
        );
    }

    #[test]
    fn shared_platform_domains_name_the_platform() {
        assert_eq!(slug("my-app.herokuapp.com"), Some(("heroku".into(), true)));
        assert_eq!(slug("api.x.workers.dev"), Some(("cloudflare".into(), true)));
        assert_eq!(slug("shop.azurewebsites.net"), Some(("azure".into(), true)));
        // A private suffix with no row: the platform's own registrable label.
        assert_eq!(
            slug("someone.blogspot.com"),
            Some(("blogspot".into(), true))
        );
    }

    #[test]
    fn a_clouds_service_domain_names_the_cloud() {
        // Each service of the cloud is a subdomain; the domain's label is no brand.
        assert_eq!(
            slug("dashscope.aliyuncs.com"),
            Some(("alibaba-cloud".into(), true))
        );
        assert_eq!(
            slug("ecs.cn-hangzhou.aliyuncs.com"),
            Some(("alibaba-cloud".into(), true))
        );
        assert_eq!(
            slug("cvm.tencentcloudapi.com"),
            Some(("tencent-cloud".into(), true))
        );
        assert_eq!(
            slug("myaccount.blob.core.windows.net"),
            Some(("azure".into(), true))
        );
        // A customer's API on API Gateway's or S3's shared names: the platform, AWS.
        assert_eq!(
            slug("abc123.execute-api.us-east-1.amazonaws.com"),
            Some(("aws".into(), true))
        );
        assert_eq!(
            slug("bucket.s3.us-west-2.amazonaws.com"),
            Some(("aws".into(), true))
        );
        assert_eq!(
            slug("sqs.us-east-1.amazonaws.com"),
            Some(("aws".into(), true))
        );
    }

    #[test]
    fn the_brand_is_the_whole_label() {
        // The API subdomain label goes; the brand stays whole, product words included.
        assert_eq!(
            slug("weatherbit-v1-mashape.p.rapidapi.com"),
            Some(("rapidapi".into(), false))
        );
        assert_eq!(
            slug("v6.exchangerate-api.com"),
            Some(("exchangerate-api".into(), false))
        );
        assert_eq!(
            slug("api.weatherapi.com"),
            Some(("weatherapi".into(), false))
        );
        assert_eq!(slug("newsapi.org"), Some(("newsapi".into(), false)));
        assert_eq!(slug("pokeapi.co"), Some(("pokeapi".into(), false)));
        assert_eq!(slug("ipapi.co"), Some(("ipapi".into(), false)));
        // Not a descriptor: `app` stays (whatsapp), and so does an inner `api` (apify).
        assert_eq!(slug("graph.whatsapp.com"), Some(("whatsapp".into(), false)));
        assert_eq!(slug("api.apify.com"), Some(("apify".into(), false)));
        // One or two characters are no name alone: the suffix stays with them.
        assert_eq!(slug("api.z.ai"), Some(("z-ai".into(), false)));
        assert_eq!(slug("api.x.ai"), Some(("x-ai".into(), false)));
        assert_eq!(slug("api.fal.ai"), Some(("fal".into(), false)));
    }

    #[test]
    fn a_service_word_or_product_code_after_the_name_goes() {
        assert_eq!(
            slug("abc.r2.cloudflarestorage.com"),
            Some(("cloudflare".into(), false))
        );
        assert_eq!(
            slug("mws.amazonservices.com"),
            Some(("amazon".into(), false))
        );
        assert_eq!(
            slug("s3.eu-central-1.wasabisys.com"),
            Some(("wasabi".into(), false))
        );
        assert_eq!(
            slug("s3.us-west-004.backblazeb2.com"),
            Some(("backblaze".into(), false))
        );
        assert_eq!(
            slug("lh3.googleusercontent.com"),
            Some(("google".into(), false))
        );
        // Too little left to be a name: the label is the brand.
        assert_eq!(slug("api.genesys.com"), Some(("genesys".into(), false)));
        assert_eq!(slug("auth0.com"), Some(("auth0".into(), false)));
        assert_eq!(slug("cloud9.io"), Some(("cloud9".into(), false)));
        assert_eq!(slug("api.route53.io"), Some(("route53".into(), false)));
        // Not service words: part of the brand.
        assert_eq!(slug("soundcloud.com"), Some(("soundcloud".into(), false)));
        assert_eq!(slug("api.rapidapi.com"), Some(("rapidapi".into(), false)));
    }

    #[test]
    fn nothing_for_names_no_public_suffix_covers() {
        for h in [
            "localhost",
            "10.0.0.1",
            "[::1]",
            "payments.mesh.internal",
            "svc.cluster.local",
            "api.example.com",
            "www.example.org",
            "shop.test",
            "",
            "com",
        ] {
            assert_eq!(host_vendor(h), None, "{h}");
        }
    }
}
