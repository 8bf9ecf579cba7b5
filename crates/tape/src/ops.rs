//! Operator boilerplate shared by the scalar types: the assign forms in terms of the binary ones.

/// Implements `+= -= *= /=` (with `Self` and with `f64`) for a `Copy` type in terms of its
/// binary operators.
macro_rules! assign_ops_via_binary {
    ($t:ty) => {
        impl ::std::ops::AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, rhs: Self) {
                *self = *self + rhs;
            }
        }
        impl ::std::ops::SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, rhs: Self) {
                *self = *self - rhs;
            }
        }
        impl ::std::ops::MulAssign for $t {
            #[inline]
            fn mul_assign(&mut self, rhs: Self) {
                *self = *self * rhs;
            }
        }
        impl ::std::ops::DivAssign for $t {
            #[inline]
            fn div_assign(&mut self, rhs: Self) {
                *self = *self / rhs;
            }
        }
        impl ::std::ops::AddAssign<f64> for $t {
            #[inline]
            fn add_assign(&mut self, rhs: f64) {
                *self = *self + rhs;
            }
        }
        impl ::std::ops::SubAssign<f64> for $t {
            #[inline]
            fn sub_assign(&mut self, rhs: f64) {
                *self = *self - rhs;
            }
        }
        impl ::std::ops::MulAssign<f64> for $t {
            #[inline]
            fn mul_assign(&mut self, rhs: f64) {
                *self = *self * rhs;
            }
        }
        impl ::std::ops::DivAssign<f64> for $t {
            #[inline]
            fn div_assign(&mut self, rhs: f64) {
                *self = *self / rhs;
            }
        }
    };
}

pub(crate) use assign_ops_via_binary;
