//! [`FloatNetwork`]: the engine's architecture 1 in `f32`, its quantisation to the engine's
//! [`Network`] and back.
//!
//! ```text
//! a_us   = b1 + sum of W1[f] over the side to move's active inputs f     (H)
//! a_them = b1 + sum of W1[f] over the other side's                       (H)
//! y      = W2[..H] · screlu(a_us) + W2[H..] · screlu(a_them) + b2        screlu(x) = clamp(x, 0, 1)²
//! eval   = y · SCALE                                                     centipawns, side to move's view
//! ```
//!
//! The parameters live in one flat vector, `[W1 (1260 × H, input-major) | b1 (H) | W2 (2H) | b2]`,
//! so the optimiser and the gradient reduction walk one array. Quantisation is NNUE.md's:
//! `ft = round(W1 · QA)`, `ft_bias = round(b1 · QA)`, `out = round(W2 · QB)`,
//! `out_bias = round(b2 · QA · QB)`; [`FloatNetwork::clip`] keeps every weight where that is
//! valid (see the limits below).

use engine::nnue::{INPUTS, Network, QA, QB, SCALE};

use crate::error::{Error, Result};
use crate::tune::playout::XorShift64;

/// Largest |W2|: `round(1.98 · 64) = 127`, the engine's largest output weight.
pub const OUTPUT_WEIGHT_LIMIT: f32 = 1.98;
/// Largest |W1| and |b1|: an accumulator is at most 32 weights and a bias, `33 · 1.98 = 65.3`,
/// `16,660` once quantised: half of i16, so the engine's wrapping adds never wrap.
pub const FEATURE_WEIGHT_LIMIT: f32 = 1.98;

/// The network in `f32` (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    hidden: usize,
    params: Vec<f32>,
}

/// Where each block starts in the flat parameter vector of hidden size `hidden`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub hidden: usize,
}

impl Layout {
    pub const fn w1(self) -> std::ops::Range<usize> {
        0..INPUTS * self.hidden
    }
    pub const fn b1(self) -> std::ops::Range<usize> {
        INPUTS * self.hidden..(INPUTS + 1) * self.hidden
    }
    pub const fn w2(self) -> std::ops::Range<usize> {
        (INPUTS + 1) * self.hidden..(INPUTS + 3) * self.hidden
    }
    pub const fn b2(self) -> usize {
        (INPUTS + 3) * self.hidden
    }
    /// Parameters in all.
    pub const fn len(self) -> usize {
        self.b2() + 1
    }
    pub const fn is_empty(self) -> bool {
        false
    }
}

impl FloatNetwork {
    /// A fresh network for training: W1 uniform in ±0.1 (32 active inputs give accumulators of
    /// about ±0.3, half of them in SCReLU's live range), b1 zero, W2 uniform in ±1/√(2H), b2 zero.
    pub fn random(hidden: usize, seed: u64) -> Result<FloatNetwork> {
        check_hidden(hidden)?;
        let layout = Layout { hidden };
        let mut rng = XorShift64::new(seed ^ 0x4E4E_5545_494E_4954);
        let mut params = vec![0f32; layout.len()];
        for w in &mut params[layout.w1()] {
            *w = (rng.unit() as f32 * 2.0 - 1.0) * 0.1;
        }
        let out = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut params[layout.w2()] {
            *w = (rng.unit() as f32 * 2.0 - 1.0) * out;
        }
        Ok(FloatNetwork { hidden, params })
    }

    /// The engine's network dequantised (a warm start): every weight divided by its scale.
    pub fn from_network(net: &Network) -> FloatNetwork {
        let hidden = net.hidden();
        let layout = Layout { hidden };
        let qa = QA as f32;
        let mut params = Vec::with_capacity(layout.len());
        for f in 0..INPUTS {
            params.extend(net.ft_weights(f).iter().map(|&w| f32::from(w) / qa));
        }
        params.extend(net.ft_biases().iter().map(|&b| f32::from(b) / qa));
        params.extend(net.out_weights().iter().map(|&w| f32::from(w) / QB as f32));
        params.push((f64::from(net.out_bias()) / f64::from(QA * QB)) as f32);
        FloatNetwork { hidden, params }
    }

    /// A network from its flat parameters (a checkpoint's).
    pub fn from_params(hidden: usize, params: Vec<f32>) -> Result<FloatNetwork> {
        check_hidden(hidden)?;
        let expected = Layout { hidden }.len();
        if params.len() != expected {
            return Err(Error::NnueSetting {
                name: "parameters",
                value: params.len().to_string(),
                reason: format!("hidden size {hidden} needs {expected}"),
            });
        }
        Ok(FloatNetwork { hidden, params })
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn layout(&self) -> Layout {
        Layout { hidden: self.hidden }
    }

    pub fn params(&self) -> &[f32] {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// Clamps every weight into the range its quantised form needs (see the limits).
    pub fn clip(&mut self) {
        let layout = self.layout();
        clip(&mut self.params, layout, 0);
    }

    /// The network with every weight moved to the nearest value its quantised form can hold:
    /// the float model whose evaluation the engine's integers reproduce (up to their
    /// truncating divisions).
    pub fn snapped(&self) -> FloatNetwork {
        let layout = self.layout();
        let mut params = self.params.clone();
        let qa = QA as f32;
        let qb = QB as f32;
        for w in &mut params[layout.w1().start..layout.b1().end] {
            *w = (*w * qa).round() / qa;
        }
        for w in &mut params[layout.w2()] {
            *w = (*w * qb).round() / qb;
        }
        let b2 = layout.b2();
        params[b2] = ((f64::from(params[b2]) * f64::from(QA * QB)).round() / f64::from(QA * QB)) as f32;
        FloatNetwork { hidden: self.hidden, params }
    }

    /// The engine's network: NNUE.md's rounding of every weight.
    pub fn quantise(&self) -> Result<Network> {
        let layout = self.layout();
        let qa = QA as f32;
        let to_i16 = |x: f32| x.round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
        let ft_weights = self.params[layout.w1()].iter().map(|&w| to_i16(w * qa)).collect();
        let ft_biases = self.params[layout.b1()].iter().map(|&b| to_i16(b * qa)).collect();
        let out_weights = self.params[layout.w2()].iter().map(|&w| to_i16(w * QB as f32)).collect();
        let out_bias = (f64::from(self.params[layout.b2()]) * f64::from(QA * QB)).round() as i32;
        Network::from_parts(self.hidden, ft_weights, ft_biases, out_weights, out_bias).map_err(|e| Error::NnueSetting {
            name: "network",
            value: format!("hidden {}", self.hidden),
            reason: e.to_string(),
        })
    }

    /// The output `y` of the position whose active inputs are `us` (side to move) and `them`.
    pub fn output(&self, us: &[u16], them: &[u16]) -> f32 {
        let h = self.hidden;
        let layout = self.layout();
        let w1 = &self.params[layout.w1()];
        let b1 = &self.params[layout.b1()];
        let (w_us, w_them) = self.params[layout.w2()].split_at(h);
        let mut acc = vec![0f32; h];
        let mut y = self.params[layout.b2()];
        for (features, w2) in [(us, w_us), (them, w_them)] {
            acc.copy_from_slice(b1);
            for &f in features {
                let column = &w1[usize::from(f) * h..(usize::from(f) + 1) * h];
                acc.iter_mut().zip(column).for_each(|(a, w)| *a += w);
            }
            y += super::kernel::screlu_dot(&acc, w2);
        }
        y
    }

    /// The evaluation in centipawns (side to move's view), clamped as the engine clamps.
    pub fn eval_cp(&self, us: &[u16], them: &[u16]) -> f64 {
        let limit = f64::from(engine::nnue::network::EVAL_LIMIT);
        (f64::from(self.output(us, them)) * f64::from(SCALE)).clamp(-limit, limit)
    }
}

/// Clamps the parameters of `params`, the slice of a flat vector with `layout` that starts at
/// index `start`, into their quantisable ranges.
pub(crate) fn clip(params: &mut [f32], layout: Layout, start: usize) {
    let ft_end = layout.b1().end;
    let w2 = layout.w2();
    for (j, w) in params.iter_mut().enumerate() {
        let i = start + j;
        let limit = if i < ft_end {
            FEATURE_WEIGHT_LIMIT
        } else if w2.contains(&i) {
            OUTPUT_WEIGHT_LIMIT
        } else {
            continue;
        };
        *w = w.clamp(-limit, limit);
    }
}

pub(crate) fn check_hidden(hidden: usize) -> Result<()> {
    if engine::nnue::network::hidden_allowed(hidden) {
        Ok(())
    } else {
        Err(Error::NnueSetting {
            name: "hidden",
            value: hidden.to_string(),
            reason: "must be a multiple of 16 in 16..=1024".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantising_a_dequantised_network_gives_it_back() -> Result<()> {
        let net = Network::random(3, 32);
        let float = FloatNetwork::from_network(&net);
        assert_eq!(float.quantise()?, net);
        assert_eq!(float.snapped(), float);
        Ok(())
    }

    #[test]
    fn clipping_keeps_the_quantised_network_valid() -> Result<()> {
        let mut float = FloatNetwork::random(16, 1)?;
        let layout = float.layout();
        float.params_mut()[layout.w2().start] = 5.0;
        float.params_mut()[layout.b1().start] = -9.0;
        assert!(float.quantise().is_err(), "an output weight of 5 is out of the engine's range");
        float.clip();
        let net = float.quantise()?;
        assert_eq!(net.out_weights()[0], 127);
        assert_eq!(net.ft_biases()[0], -505);
        Ok(())
    }

    #[test]
    fn hidden_sizes_the_engine_refuses_are_refused() {
        assert!(FloatNetwork::random(24, 1).is_err());
        assert!(FloatNetwork::from_params(16, vec![0.0; 3]).is_err());
    }
}
