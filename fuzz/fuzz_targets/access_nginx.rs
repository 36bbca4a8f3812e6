//! Access-log reader: nginx (combined, main, ingress upstreaminfo), Apache CLF and Traefik's CLF text logs. The first byte picks the format; any
//! bytes are read without a panic and the summary is consistent.
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::ingest::Format;

const FORMATS: &[Format] = &[Format::Nginx, Format::Clf, Format::Traefik];

fuzz_target!(|data: &[u8]| {
    if let Some((format, input)) = toomany_fuzz::pick(data, FORMATS) {
        toomany_fuzz::ingest_bytes(input, Some(format), None);
    }
});
