//! The hot loops: the forward pass, the loss and the sparse backward pass over a chunk of
//! positions, into the chunk's own gradient buffer.
//!
//! ```text
//! p     = sigmoid(c · y)                      c = K · ln 10   (eval = 400 y, the tuner's 10^(-K eval / 400))
//! t     = (1 - lambda) · result + lambda · sigmoid(c / 400 · score)
//! loss  = (p - t)²
//! g     = dloss/dy = 2 (p - t) p (1 - p) c
//! dW2   = g · screlu(a)        db2 = g
//! da_j  = g · W2_j · 2 a_j   where 0 < a_j < 1, else 0
//! db1  += da_us + da_them      dW1[f] += da for every active input f of that perspective
//! ```
//!
//! Everything is `f32` over contiguous slices of `H`, written so that the compiler vectorises
//! it: element-wise loops, and sums kept in [`LANES`] independent partial sums added in a
//! fixed order at the end. No fused multiply-add, so the AVX2 build of the same loops (chosen
//! at run time) gives the same bits as the portable one.

use super::model::Layout;
use super::packed::PackedPosition;

/// Partial sums of a dot product (two AVX2 registers of f32).
const LANES: usize = 16;

/// What turns a position into its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelScale {
    /// `K · ln 10`: the logistic's slope per unit of network output.
    pub c: f32,
    /// The score's weight in the label.
    pub lambda: f32,
}

impl LabelScale {
    pub fn new(k: f64, lambda: f64) -> LabelScale {
        LabelScale { c: (k * std::f64::consts::LN_10) as f32, lambda: lambda as f32 }
    }

    /// `(1 - lambda) · result + lambda · sigmoid(score)`, side to move's view.
    #[inline(always)]
    pub fn label(&self, p: &PackedPosition) -> f32 {
        let expected = sigmoid(self.c / engine::nnue::SCALE as f32 * p.score() as f32);
        (1.0 - self.lambda) * p.result() + self.lambda * expected
    }
}

#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// `sum of clamp(a, 0, 1)² · w`, in [`LANES`] partial sums.
#[inline(always)]
pub fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut sums = [0f32; LANES];
    let (acc_chunks, w_chunks) = (acc.chunks_exact(LANES), w.chunks_exact(LANES));
    let (acc_rest, w_rest) = (acc_chunks.remainder(), w_chunks.remainder());
    for (a, w) in acc_chunks.zip(w_chunks) {
        for l in 0..LANES {
            let x = a[l].clamp(0.0, 1.0);
            sums[l] += x * x * w[l];
        }
    }
    let mut total = 0f32;
    for (a, w) in acc_rest.iter().zip(w_rest) {
        let x = a.clamp(0.0, 1.0);
        total += x * x * w;
    }
    sums.iter().fold(total, |t, s| t + s)
}

/// Neurons per register block of the accumulate and scatter loops: eight AVX2 registers, so
/// that the adds of one block are independent enough to run at full rate.
const BLOCK: usize = 64;
/// The smallest block (a hidden size is a multiple of 16).
const SMALL_BLOCK: usize = 16;

/// `out[start..start + B] = b1 + the inputs' columns`, the block held in registers over the
/// inputs (so the loop loads each column once and stores the sum once). Per neuron the adds
/// are in input order, as a plain loop would do them.
#[inline(always)]
fn accumulate_block<const B: usize>(out: &mut [f32], b1: &[f32], w1: &[f32], features: &[u16], h: usize, start: usize) {
    let mut sum = [0f32; B];
    sum.copy_from_slice(&b1[start..start + B]);
    for &f in features {
        let column = &w1[usize::from(f) * h + start..][..B];
        for (s, w) in sum.iter_mut().zip(column) {
            *s += w;
        }
    }
    out[start..start + B].copy_from_slice(&sum);
}

/// `acc = b1 + sum of the inputs' columns`.
#[inline(always)]
fn accumulate(acc: &mut [f32], b1: &[f32], w1: &[f32], features: &[u16], h: usize) {
    let mut start = 0;
    while start + BLOCK <= h {
        accumulate_block::<BLOCK>(acc, b1, w1, features, h, start);
        start += BLOCK;
    }
    while start + SMALL_BLOCK <= h {
        accumulate_block::<SMALL_BLOCK>(acc, b1, w1, features, h, start);
        start += SMALL_BLOCK;
    }
}

/// `grad_w1[f][start..start + B] += d[start..start + B]` for every input `f`, the block of `d`
/// held in registers.
#[inline(always)]
fn scatter_block<const B: usize>(grad_w1: &mut [f32], d: &[f32], features: &[u16], h: usize, start: usize) {
    let mut block = [0f32; B];
    block.copy_from_slice(&d[start..start + B]);
    for &f in features {
        let row = &mut grad_w1[usize::from(f) * h + start..][..B];
        for (g, d) in row.iter_mut().zip(&block) {
            *g += d;
        }
    }
}

/// Adds `d` to the gradient row of every input.
#[inline(always)]
fn scatter(grad_w1: &mut [f32], d: &[f32], features: &[u16], h: usize) {
    let mut start = 0;
    while start + BLOCK <= h {
        scatter_block::<BLOCK>(grad_w1, d, features, h, start);
        start += BLOCK;
    }
    while start + SMALL_BLOCK <= h {
        scatter_block::<SMALL_BLOCK>(grad_w1, d, features, h, start);
        start += SMALL_BLOCK;
    }
}

/// Scratch space of one chunk: both accumulators and their gradients.
struct Scratch {
    us: Vec<f32>,
    them: Vec<f32>,
    d_us: Vec<f32>,
    d_them: Vec<f32>,
}

impl Scratch {
    fn new(h: usize) -> Scratch {
        Scratch { us: vec![0.0; h], them: vec![0.0; h], d_us: vec![0.0; h], d_them: vec![0.0; h] }
    }
}

/// The output `y` of one position, leaving both accumulators in `s`.
#[inline(always)]
fn forward(params: &[f32], layout: Layout, p: &PackedPosition, s: &mut Scratch) -> (f32, super::packed::Features) {
    let h = layout.hidden;
    let (w1, b1) = (&params[layout.w1()], &params[layout.b1()]);
    let (w2_us, w2_them) = params[layout.w2()].split_at(h);
    let features = p.features();
    accumulate(&mut s.us, b1, w1, features.us(), h);
    accumulate(&mut s.them, b1, w1, features.them(), h);
    let y = params[layout.b2()] + screlu_dot(&s.us, w2_us) + screlu_dot(&s.them, w2_them);
    (y, features)
}

/// One perspective's backward step: the output weights' gradient and the accumulator's.
#[inline(always)]
fn backward_half(acc: &[f32], w2: &[f32], g: f32, grad_w2: &mut [f32], d_acc: &mut [f32]) {
    for (((a, w), gw), d) in acc.iter().zip(w2).zip(grad_w2.iter_mut()).zip(d_acc.iter_mut()) {
        let x = a.clamp(0.0, 1.0);
        *gw += g * x * x;
        let live = if *a > 0.0 && *a < 1.0 { 1.0 } else { 0.0 };
        *d = g * w * 2.0 * x * live;
    }
}

#[inline(always)]
fn gradient_impl(
    params: &[f32],
    layout: Layout,
    positions: &[PackedPosition],
    order: &[u32],
    scale: LabelScale,
    grad: &mut [f32],
) -> f64 {
    let h = layout.hidden;
    let mut s = Scratch::new(h);
    let mut loss = 0f64;
    let (w2_us, w2_them) = params[layout.w2()].split_at(h);
    let (grad_w1, rest) = grad.split_at_mut(layout.b1().start);
    let (grad_b1, rest) = rest.split_at_mut(h);
    let (grad_w2, grad_b2) = rest.split_at_mut(2 * h);
    let (grad_w2_us, grad_w2_them) = grad_w2.split_at_mut(h);
    // The chunk's positions gathered first: the shuffled order makes each a cache miss, and
    // misses taken together overlap where misses inside the work would not.
    let gathered: Vec<PackedPosition> = order.iter().map(|&i| positions[i as usize]).collect();
    for p in &gathered {
        let (y, features) = forward(params, layout, p, &mut s);
        let prob = sigmoid(scale.c * y);
        let diff = prob - scale.label(p);
        loss += f64::from(diff * diff);
        let g = 2.0 * diff * prob * (1.0 - prob) * scale.c;
        grad_b2[0] += g;
        backward_half(&s.us, w2_us, g, grad_w2_us, &mut s.d_us);
        backward_half(&s.them, w2_them, g, grad_w2_them, &mut s.d_them);
        for ((b, du), dt) in grad_b1.iter_mut().zip(&s.d_us).zip(&s.d_them) {
            *b += du + dt;
        }
        scatter(grad_w1, &s.d_us, features.us(), h);
        scatter(grad_w1, &s.d_them, features.them(), h);
    }
    loss
}

#[inline(always)]
fn loss_impl(params: &[f32], layout: Layout, positions: &[PackedPosition], scale: LabelScale) -> f64 {
    let mut s = Scratch::new(layout.hidden);
    let mut loss = 0f64;
    for p in positions {
        let (y, _) = forward(params, layout, p, &mut s);
        let diff = sigmoid(scale.c * y) - scale.label(p);
        loss += f64::from(diff * diff);
    }
    loss
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn gradient_avx2(
    params: &[f32],
    layout: Layout,
    positions: &[PackedPosition],
    order: &[u32],
    scale: LabelScale,
    grad: &mut [f32],
) -> f64 {
    gradient_impl(params, layout, positions, order, scale, grad)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn loss_avx2(params: &[f32], layout: Layout, positions: &[PackedPosition], scale: LabelScale) -> f64 {
    loss_impl(params, layout, positions, scale)
}

fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Adds the loss gradient of `positions[order[..]]` to `grad` (a flat vector of `layout`);
/// returns the sum of their losses.
pub fn chunk_gradient(
    params: &[f32],
    layout: Layout,
    positions: &[PackedPosition],
    order: &[u32],
    scale: LabelScale,
    grad: &mut [f32],
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 (checked above), the only requirement of the target feature.
        return unsafe { gradient_avx2(params, layout, positions, order, scale, grad) };
    }
    gradient_impl(params, layout, positions, order, scale, grad)
}

/// The sum of the losses of `positions`.
pub fn chunk_loss(params: &[f32], layout: Layout, positions: &[PackedPosition], scale: LabelScale) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 (checked above), the only requirement of the target feature.
        return unsafe { loss_avx2(params, layout, positions, scale) };
    }
    loss_impl(params, layout, positions, scale)
}

/// The portable loops alone (the tests compare them with the AVX2 build).
#[cfg(test)]
pub(crate) fn chunk_gradient_portable(
    params: &[f32],
    layout: Layout,
    positions: &[PackedPosition],
    order: &[u32],
    scale: LabelScale,
    grad: &mut [f32],
) -> f64 {
    gradient_impl(params, layout, positions, order, scale, grad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::model::FloatNetwork;
    use crate::nnue::testing::sample_positions;

    /// The analytic gradient against central differences of the loss, on a few parameters of
    /// every block (f64 differences of an f32 loss: a loose but telling tolerance).
    #[test]
    fn the_gradient_is_the_derivative_of_the_loss() {
        let positions = sample_positions(64, 3);
        let mut net = FloatNetwork::random(16, 9).expect("hidden 16");
        let layout = net.layout();
        // Biases that keep most neurons live, so every block has a gradient.
        for b in &mut net.params_mut()[layout.b1()] {
            *b = 0.4;
        }
        let scale = LabelScale::new(1.0, 0.5);
        let order: Vec<u32> = (0..positions.len() as u32).collect();
        let mut grad = vec![0f32; layout.len()];
        chunk_gradient(net.params(), layout, &positions, &order, scale, &mut grad);
        let features = positions[0].features();
        let probes = [
            usize::from(features.us()[0]) * 16 + 3,
            usize::from(features.them()[2]) * 16 + 7,
            layout.b1().start + 5,
            layout.w2().start + 1,
            layout.w2().start + 16 + 9,
            layout.b2(),
        ];
        for i in probes {
            let eps = 1e-2f32;
            let mut plus = net.clone();
            plus.params_mut()[i] += eps;
            let mut minus = net.clone();
            minus.params_mut()[i] -= eps;
            let numeric = (chunk_loss(plus.params(), layout, &positions, scale)
                - chunk_loss(minus.params(), layout, &positions, scale))
                / f64::from(2.0 * eps);
            let analytic = f64::from(grad[i]);
            assert!(
                (numeric - analytic).abs() <= 0.02 * analytic.abs().max(1e-3),
                "parameter {i}: numeric {numeric}, analytic {analytic}"
            );
        }
    }

    #[test]
    fn the_avx2_loops_give_the_portable_bits() {
        let positions = sample_positions(200, 4);
        let net = FloatNetwork::random(32, 2).expect("hidden 32");
        let layout = net.layout();
        let scale = LabelScale::new(0.8, 0.3);
        let order: Vec<u32> = (0..positions.len() as u32).rev().collect();
        let (mut fast, mut slow) = (vec![0f32; layout.len()], vec![0f32; layout.len()]);
        let a = chunk_gradient(net.params(), layout, &positions, &order, scale, &mut fast);
        let b = chunk_gradient_portable(net.params(), layout, &positions, &order, scale, &mut slow);
        assert_eq!(a.to_bits(), b.to_bits());
        assert!(fast.iter().zip(&slow).all(|(x, y)| x.to_bits() == y.to_bits()));
    }

    #[test]
    fn the_float_model_and_the_kernel_agree() {
        let positions = sample_positions(20, 5);
        let net = FloatNetwork::random(16, 3).expect("hidden 16");
        let scale = LabelScale::new(1.0, 0.0);
        for p in &positions {
            let f = p.features();
            let prob = sigmoid(scale.c * net.output(f.us(), f.them()));
            let diff = prob - p.result();
            let loss = chunk_loss(net.params(), net.layout(), std::slice::from_ref(p), scale);
            assert!((loss - f64::from(diff * diff)).abs() < 1e-7);
        }
    }
}
