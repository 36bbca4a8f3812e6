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
    let slug = domain.split('.').next()?.to_string();
    if GENERIC.contains(&slug.as_str()) {
        return None;
    }
    Some(HostVendor {
        slug,
        domain,
        platform: false,
    })
}

/// The platform that owns a private (shared) suffix: its row in [`PLATFORMS`], else the first
/// label of the suffix's own registrable domain under the public (ICANN) rules.
fn platform(suffix: &str) -> Option<HostVendor> {
    let known = PLATFORMS
        .iter()
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
