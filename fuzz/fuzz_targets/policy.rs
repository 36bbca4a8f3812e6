//! `simulate --policy toomany.toml|toomany.json`: any file content either reads as a policy or
//! is refused with a message naming the file; a policy that reads turns into a client policy
//! whose waits are computed without a panic or overflow.
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::simulate::policy::{from_neutral, read_policy_file};
use toomany::simulate::rng::Rng;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let ext = ["toml", "json", "policy"][pick as usize % 3];
    let path = toomany_fuzz::scratch_named(ext);
    std::fs::write(&path, content).expect("scratch file is writable");
    let read = read_policy_file(&path);
    let _ = std::fs::remove_file(&path);
    let p = match read {
        Ok(p) => p,
        Err(e) => {
            assert!(e.to_string().contains(&*path.to_string_lossy()), "{e}");
            return;
        }
    };
    let client = from_neutral("fuzz", &p);
    let mut rng = Rng::new(pick as u64);
    if let Some(b) = &client.backoff {
        for n in [1, 2, 5, 30, 64, 1000, u32::MAX] {
            let _ = b.wait(n, &mut rng);
        }
    }
});
