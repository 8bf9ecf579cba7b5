//! The byte mutator of the fuzz smoke tests (here and in `trace`): one to seven edits of a
//! seed input, bytes drawn at random or from an alphabet of the format's own characters.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// `seed` with one to seven random edits: a byte replaced (at random, or by one of
/// `alphabet`), removed, inserted, a cut, or a chunk of the input copied elsewhere.
pub fn mutate(rng: &mut ChaCha8Rng, seed: &[u8], alphabet: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..rng.gen_range(1..8) {
        if v.is_empty() {
            v.push(rng.gen());
            continue;
        }
        let i = rng.gen_range(0..v.len());
        match rng.gen_range(0..6) {
            0 => v[i] = rng.gen(),
            1 if !alphabet.is_empty() => v[i] = alphabet[rng.gen_range(0..alphabet.len())],
            1 => v[i] = rng.gen(),
            2 => {
                v.remove(i);
            }
            3 => v.truncate(i),
            4 => {
                let j = rng.gen_range(0..v.len());
                let chunk: Vec<u8> = v[j..(j + rng.gen_range(1..20)).min(v.len())].to_vec();
                v.splice(i..i, chunk);
            }
            _ => v.insert(i, rng.gen()),
        }
    }
    v
}
