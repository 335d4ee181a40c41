//! Fused elementwise and small kernels used by the forward and backward passes.

/// A raw pointer that may be shared across rayon tasks that write disjoint elements.
#[derive(Clone, Copy)]
pub(crate) struct SyncPtr<T>(pub *mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}

/// Whether the AVX-512 versions of the kernels can run (cached by std after the first call).
/// Never without the `avx512` feature: such a build runs what an AVX2 machine runs.
#[inline(always)]
pub(crate) fn has_avx512() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "avx512"))]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && has_avx2()
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "avx512")))]
    {
        false
    }
}

/// Whether the AVX2 + FMA versions of the kernels can run (cached by std after the first call).
#[inline(always)]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name`, which runs the `#[inline(always)]` function `$body` compiled for AVX-512 or
/// AVX2+FMA when available (runtime dispatch: the crate is built for the baseline x86-64 target,
/// where the mask hashing and the loss polynomials would not vectorise), and as is otherwise.
/// Every version performs the same operations in the same order (no fast-math), so all give
/// the same bits; wider registers only run them faster.
macro_rules! multiversion {
    ($vis:vis fn $name:ident<$T:ident>($($a:ident: $t:ty),* $(,)?) $(-> $r:ty)? => $body:ident) => {
        // Kernels take every buffer they touch as an argument.
        #[allow(clippy::too_many_arguments)]
        #[inline]
        $vis fn $name<$T: crate::real::Real>($($a: $t),*) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                unsafe fn avx512<$T: crate::real::Real>($($a: $t),*) $(-> $r)? {
                    $body($($a),*)
                }
                if crate::kernels::has_avx512() {
                    // SAFETY: the CPU supports the enabled features (checked just above).
                    return unsafe { avx512($($a),*) };
                }
                #[target_feature(enable = "avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                unsafe fn avx2<$T: crate::real::Real>($($a: $t),*) $(-> $r)? {
                    $body($($a),*)
                }
                if crate::kernels::has_avx2() {
                    // SAFETY: the CPU supports the enabled features (checked just above).
                    return unsafe { avx2($($a),*) };
                }
            }
            $body($($a),*)
        }
    };
}
// Used outside `kernels` by the optimizer; kernels see the macro by textual scope.
#[cfg(feature = "training")]
pub(crate) use multiversion;

pub mod batchnorm;
pub mod core_product;
pub mod dot;
pub mod elementwise;
pub mod int8_dots;
// Training and fold-in (`crate::fold_in`, which serving builds include) both use it.
pub mod loss;
mod masked_core_avx512;
pub mod rank_count;
pub mod ranking_product_avx512;
pub mod sampled_loss;
pub mod score_tiles_avx512;
mod unmasked_core_avx512;
