//! [`reads`]: the parameters one position's evaluation reads, store by store, as a structural
//! fact of the record (not of the weights): a change of any other parameter leaves the
//! position's value exactly as it is. What an incremental pass needs (the integer polish:
//! `texel::finish`, over `optim::Columns`) to re-evaluate only the positions a step changes.
//!
//! Kept apart from the stores' hot code: each store's part reads its records through the
//! accessors the replay already has. A store that cannot say (the general programs, `full`'s
//! sums-and-head store) answers `false`, and a caller treats its positions as reading every
//! parameter. A new store answers here too (the `match` below names every store).
//! [`tapered_terms`] gives a phased row's terms and factors, so that a caller can move its
//! evaluation by one weight's step without scoring it afresh.

use super::head_program::HeadRows;
use super::interface::Store;
use super::unit::unpack_unit;
use super::AnyStore;

thread_local! {
    /// The coefficients a phased row expands to beside its indices (unused here; one buffer a
    /// thread, so that listing a million rows allocates nothing).
    static COEF: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Appends to `out` every parameter position `i` of `store` reads (some maybe more than once,
/// in any order): for a linear row its terms (a tapered pair's two weights, even where a
/// phase factor is 0), for a row of the sums-scalars-and-head store its twin groups' pairs
/// and its picks. `false` (and nothing appended) if the store cannot tell: any parameter may
/// change the position's value.
pub(crate) fn reads(store: &AnyStore, i: usize, out: &mut Vec<u32>) -> bool {
    match store {
        AnyStore::Phased(s) => {
            COEF.with_borrow_mut(|coef| {
                s.row_into(i, out, coef);
                coef.clear();
            });
            true
        }
        AnyStore::Sparse(s) => match s.stored_row(i) {
            Some((idx, _)) => {
                out.extend_from_slice(idx);
                true
            }
            None => false,
        },
        AnyStore::ScalarHead(s) => {
            let row = s.row(i);
            let pairs = s.pairs();
            let packing = pairs.packing;
            for (units, general) in row.groups() {
                let units = units.iter().map(|&f| unpack_unit(f).0);
                for p in units.chain(general.iter().map(|&f| packing.unpack(f).0)) {
                    out.push(pairs.mg[p]);
                    out.push(pairs.eg[p]);
                }
            }
            out.extend(row.picks.iter().map(|&p| u32::from(p)));
            true
        }
        AnyStore::Headed(_) | AnyStore::Programs(_) => false,
    }
}

/// For position `i` of a phased store (a linear row `c + sum_k s_k (a w[m_k] + b w[e_k])`):
/// its factors `[a, b]`, with its terms `(m_k, e_k, s_k)` appended to `out` (`m_k == e_k` for
/// a single, whose coefficient is `s_k (a + b)`); `None` for a position of any other store.
pub(crate) fn tapered_terms(
    store: &AnyStore,
    i: usize,
    out: &mut Vec<(u32, u32, f64)>,
) -> Option<[f64; 2]> {
    match store {
        AnyStore::Phased(s) => {
            let (factors, terms) = s.terms(i);
            out.extend(terms);
            Some(factors)
        }
        _ => None,
    }
}
