//! A seeded PRNG of our own: xoshiro256** (Blackman & Vigna) seeded through SplitMix64.
//! Simulation results are golden outputs (same `--seed`, same JSON), so the generator must never
//! change with a crate update, which `rand`'s `StdRng` does not promise.

#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        Rng {
            s: [
                splitmix64(&mut x),
                splitmix64(&mut x),
                splitmix64(&mut x),
                splitmix64(&mut x),
            ],
        }
    }

    /// An independent stream for a purpose (arrivals vs. backoff), from the same seed.
    pub fn stream(seed: u64, purpose: u64) -> Rng {
        Rng::new(seed ^ purpose.wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n] (inclusive), without modulo bias.
    pub fn up_to(&mut self, n: u64) -> u64 {
        if n == u64::MAX {
            return self.next_u64();
        }
        let range = n + 1;
        let zone = u64::MAX - (u64::MAX % range) - 1;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return x % range;
            }
        }
    }

    /// Normal(mean, sd) by Box–Muller.
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.f64(); // (0, 1]
        let u2 = self.f64();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.f64()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_pinned() {
        // If this changes, every golden simulation output changes: do not.
        let mut r = Rng::new(1);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            first,
            [0xb3f2af6d0fc710c5, 0x853b559647364cea, 0x92f89756082a4514]
        );
    }

    #[test]
    fn uniform_ranges_and_moments() {
        let mut r = Rng::new(7);
        let mut sum = 0.0;
        for _ in 0..100_000 {
            let x = r.f64();
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        assert!((sum / 100_000.0 - 0.5).abs() < 0.01);
        for _ in 0..1000 {
            assert!(r.up_to(10) <= 10);
        }
        assert_eq!(r.up_to(0), 0);
        let n: f64 = (0..100_000).map(|_| r.normal(10.0, 2.0)).sum::<f64>() / 100_000.0;
        assert!((n - 10.0).abs() < 0.05, "{n}");
    }
}
