//! Statistics against reference values computed by Fishtest's own Python code.
//!
//! Source: official-stockfish/fishtest, `server/fishtest/stats/LLRcalc.py` (`LLR_normalized`,
//! `LLR_logistic`, `LLR_normalized_alt`), `stat_util.py` (`get_elo`, `update_SPRT`,
//! `draw_elo_calc`, `bayeselo_to_elo`, `elo_to_bayeselo`, `LLRlegacy`) and the statistics page
//! template (`tests_stats`: nElo with its interval), run unchanged under CPython 3.11 with
//! scipy 1.17.1 (brentq, norm.cdf, norm.ppf). The inputs are Fishtest's own examples (its
//! `stat_util.py` self-test samples, the OpenBench `stats.py` pentanomial sample) and edge
//! cases: empty, all draws, one-sided, one pair.
//!
//! Tolerances: Elo, LOS and nElo are closed forms, compared to 1e-10 relative (1e-12 absolute
//! near zero); the LLRs go through root finding (tolerance 2e-12 on the root, as scipy) and are
//! compared to 1e-9 relative (1e-12 absolute). Measured agreement on this machine: 2.3e-13
//! relative at worst for the closed forms, better than 1e-13 for the LLRs. The overshoot replay
//! compares the final LLR to 1e-7 and the corrections to 1e-6 relative.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use analysis::stats::*;

struct Reference {
    counts: &'static [u64],
    /// `get_elo`: Elo, the Elo of the lower and upper ends of the score's 95% interval.
    elo: [f64; 3],
    los: f64,
    /// nElo and its 95% interval.
    nelo: [f64; 3],
    /// LLR for normalized [0, 5], normalized [0, 2], logistic [0, 2], logistic [-3, 1],
    /// normalized [0.764, 3.439], and the normalized approximation `LLR_normalized_alt` [0, 5].
    llr: [f64; 6],
}

#[rustfmt::skip]
const PENTANOMIAL: [Reference; 14] = [
    Reference { counts: &[10789, 19328, 33806, 19402, 10543], elo: [-0.7735773359165423, -2.051167691664677, 0.5039920997913666], los: 0.1176588580327751, nelo: [-0.9516290044726475, -2.5232516812470083, 0.6199936723017131], llr: [-26.83844863979962, -6.070429067588585, -8.34820881516847, 2.1310678117940807, -12.701291983697933, -26.83661503651018] },
    Reference { counts: &[1187, 7410, 13475, 7378, 1164], elo: [-0.4426077992236841, -2.172477799080058, 1.2872402561554264], los: 0.3080138791226903, nelo: [-0.7041412082298986, -3.456133602702707, 2.0478511862429105], llr: [-8.125813619160681, -1.7287536221817865, -3.703553587139313, 2.86152718059463, -3.8066921545276027, -8.125006411541762] },
    Reference { counts: &[39, 2226, 31451, 2412, 40], elo: [0.902981048809024, 0.24045284636979794, 1.5655158183331086], los: 0.9962220973354207, nelo: [3.450799606946096, 0.919560003682218, 5.982039210209973], llr: [2.847898594082948, 2.93690981720447, -1.6892967361663422, 65.97358529713483, 2.162940869584568, 2.8486503965927006] },
    Reference { counts: &[39, 8843, 26675, 9240, 44], elo: [1.5767629413996245, 0.546462765816836, 2.607090849246835], los: 0.9986479839014994, nelo: [3.479956126885529, 1.2058873646287067, 5.754024889142349], llr: [3.6399433886735766, 3.6845606943888622, 4.173967233019175, 37.27509202326561, 2.7391980961642957, 3.6400503003887597] },
    Reference { counts: &[3, 5, 8, 5, 3], elo: [-0.0, -84.34045818709994, 84.34045818709994], los: 0.5, nelo: [0.0, -98.28828802194437, 98.28828802194437], llr: [-0.004970118093668097, -0.0007952741845120882, -0.0011227195525003106, 0.0022453330979868083, -0.002235259643041939, -0.004970014837893632] },
    Reference { counts: &[1, 2, 4, 10, 15], elo: [221.1367874631123, 139.0087070887381, 334.0756668921545], los: 0.9999999992394216, nelo: [262.4053199215159, 112.36546141400756, 412.44517842902434], llr: [0.4559401744564935, 0.1838781908254552, 0.1643347584066186, 0.3310589947525018, 0.24446327983362126, 0.44176810373462444] },
    Reference { counts: &[15, 10, 4, 2, 1], elo: [-221.1367874631123, -334.0756668921544, -139.0087070887381], los: 7.605783899316805e-10, nelo: [-262.4053199215159, -412.44517842902434, -112.36546141400756], llr: [-0.46840711956582637, -0.18587320728541923, -0.1655298662319602, -0.3286687766553835, -0.25007044115871646, -0.4440773425364351] },
    Reference { counts: &[0, 0, 24, 0, 0], elo: [-7.714619732426294e-14, -1.418440713847123, 1.4184407138470057], los: 0.49999999999997874, nelo: [0.0, -98.28009835497004, 98.28009835497004], llr: [-0.007584400547123765, -0.0008999619527013265, -0.13304818295400359, 0.13786767306545034, -0.0030172446250712115, -0.004970843173699948] },
    Reference { counts: &[10, 0, 0, 0, 10], elo: [-0.0, -163.29545772368613, 163.29545772368616], los: 0.5, nelo: [0.0, -107.6613506778415, 107.6613506778415], llr: [-0.004141871515836202, -0.0006628147122088052, -0.0003314579329857786, 0.0006629103746651594, -0.0018628808170135724, -0.004142300283432763] },
    Reference { counts: &[0, 0, 0, 0, 10], elo: [1199.8261952903777, 822.0312212379202, 1199.8261952903777], los: 1.0, nelo: [8969.552189144595, -165444.488838808, 183383.5932170972], llr: [0.20144653872693966, 0.08108038238875867, 0.05741038555877071, 0.11548376718322503, 0.10795343108102066, 0.01113967465066994] },
    Reference { counts: &[10, 0, 0, 0, 0], elo: [-1199.826195290393, -1199.826195290393, -822.03122123792], los: 0.0, nelo: [-8969.552189144593, -183383.59321709716, 165444.48883880797], llr: [-0.20558908341176263, -0.08174330482718267, -0.057741884964770875, -0.11482077386352518, -0.10981661466857702, -0.011133485260327196] },
    Reference { counts: &[0, 0, 0, 0, 0], elo: [-0.0, -1199.826195290393, 1199.8261952903777], los: 0.5, nelo: [0.0, -6809.612345718847, 6809.612345718847], llr: [-1.0353876017312695e-06, -1.656807473997572e-07, -1.6568230290702967e-07, 3.313585669921775e-07, -4.6566710841200414e-07, -1.0354197578945067e-06] },
    Reference { counts: &[0, 3, 0, 0, 0], elo: [-190.4631900014707, -209.46944747250873, -172.44205820060375], los: 8.656846260359216e-133, nelo: [-3471.8478359899323, -75021.05293621098, 68077.35726423112], llr: [-0.04379492888928648, -0.017368865840322458, -0.017324939691632627, -0.034450594421475744, -0.023377362920886113, -0.008560621786642308] },
    Reference { counts: &[0, 0, 0, 1, 0], elo: [189.69690474544302, 138.20972445637034, 250.1794275671302], los: 0.9999999999999999, nelo: [2001.5805512770557, -39456.82840816287, 43459.98951071698], llr: [0.014183196911276738, 0.005723169850849432, 0.00574545605903318, 0.01155765212483982, 0.0076057416223964695, 0.004875056918205505] },
];
#[rustfmt::skip]
const TRINOMIAL: [Reference; 6] = [
    Reference { counts: &[65804, 56553, 65388], elo: [-0.7698390908603271, -2.083592938828181, 0.5438927428804149], los: 0.12537555271611706, nelo: [-0.9209398978461407, -2.4925353288819596, 0.6506555331896783], llr: [-26.601469921081982, -5.975287588955726, -7.878431278547789, 2.0490426179674808, -12.574369492243658, -26.59932702323571] },
    Reference { counts: &[591, 2163, 716], elo: [12.52110904602384, 5.433720253548425, 19.618930807343144], los: 0.9997334525565953, nelo: [20.428251141907435, 8.853206085198348, 32.003296198616525], llr: [2.572287463158173, 1.1150340420103164, 1.7584691028430426, 4.1237369538383755, 1.4067748473869375, 2.5698725818243946] },
    Reference { counts: &[1500, 4000, 1450], elo: [-2.499579710800617, -7.822211508659304, 2.821878995294647], los: 0.17862162141635968, nelo: [-3.8367841921968493, -12.005541898869165, 4.3319735144754645], llr: [-1.8240778705268095, -0.5569255030230629, -0.9492865240980116, -0.8136161647685264, -0.914519751293939, -1.8235102820352866] },
    Reference { counts: &[0, 20, 10], elo: [120.39462735484736, 57.70763460792867, 191.7727977560815], los: 0.9999460447010018, nelo: [245.61265200762202, 152.30144813489125, 338.9238558803528], llr: [0.2466449741715345, 0.09927763078125607, 0.17216762986380046, 0.34632509840000375, 0.13217473658660453, 0.20280483329172336] },
    Reference { counts: &[0, 0, 0], elo: [-0.0, -1199.826195290393, 1199.8261952903777], los: 0.5, nelo: [0.0, -12432.594298719601, 12432.594298719601], llr: [-3.106339680738488e-07, -4.9704677143048036e-08, -7.455722160276592e-08, 1.4911228161018383e-07, -1.397040819173241e-07, -3.10625927368352e-07] },
    Reference { counts: &[0, 30, 0], elo: [-7.714619732426294e-14, -1.0150522917146152, 1.0150522917145754], los: 0.4999999999999703, nelo: [-4.724377947404118e-12, -124.32179899629955, 124.3217989962901], llr: [-0.0046129126062565366, -0.0005570788106505957, -0.16773541431916966, 0.17259903371861124, -0.001844938648059067, -0.003106466357638431] },
];

fn assert_close(what: &str, got: f64, want: f64, rel: f64, abs: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs() + abs,
        "{what}: got {got}, Fishtest {want} (difference {:e})",
        got - want
    );
}

fn check<O: Outcomes>(outcomes: &O, r: &Reference) {
    let name = format!("{:?}", r.counts);
    let closed = |what: &str, got: f64, want: f64| assert_close(&format!("{name} {what}"), got, want, 1e-10, 1e-12);
    let e = elo_estimate(outcomes);
    closed("elo", e.elo, r.elo[0]);
    closed("elo lower", e.lower, r.elo[1]);
    closed("elo upper", e.upper, r.elo[2]);
    closed("los", e.los, r.los);
    let n = nelo_estimate(outcomes);
    closed("nelo", n.nelo, r.nelo[0]);
    closed("nelo lower", n.lower, r.nelo[1]);
    closed("nelo upper", n.upper, r.nelo[2]);

    let root = |what: &str, got: f64, want: f64| assert_close(&format!("{name} {what}"), got, want, 1e-9, 1e-12);
    root("LLR normalized [0, 5]", llr_normalized(outcomes, 0.0, 5.0).unwrap(), r.llr[0]);
    root("LLR normalized [0, 2]", llr_normalized(outcomes, 0.0, 2.0).unwrap(), r.llr[1]);
    root("LLR logistic [0, 2]", llr_logistic(outcomes, 0.0, 2.0).unwrap(), r.llr[2]);
    root("LLR logistic [-3, 1]", llr_logistic(outcomes, -3.0, 1.0).unwrap(), r.llr[3]);
    root("LLR normalized [0.764, 3.439]", llr_normalized(outcomes, 0.764, 3.439).unwrap(), r.llr[4]);
    closed("LLR normalized alt [0, 5]", llr_normalized_alt(outcomes, 0.0, 5.0), r.llr[5]);
}

#[test]
fn pentanomial_statistics_match_fishtest() {
    for r in &PENTANOMIAL {
        let counts: [u64; 5] = r.counts.try_into().unwrap();
        check(&Pentanomial { counts }, r);
    }
}

#[test]
fn trinomial_statistics_match_fishtest() {
    for r in &TRINOMIAL {
        let &[losses, draws, wins] = r.counts else { unreachable!() };
        check(&Wdl { wins, draws, losses }, r);
    }
}

#[test]
fn fishtest_sample_sprt_verdicts() {
    let p = Pentanomial { counts: [10789, 19328, 33806, 19402, 10543] };
    // Normalized [0, 5]: LLR -26.84, far below -2.94.
    let normalized = sprt(&p, &SprtSettings::default()).unwrap();
    assert_close("llr", normalized.llr, -26.83844863979962, 1e-7, 0.0);
    assert_close("lower", normalized.lower, -2.9444389791664403, 1e-15, 0.0);
    assert_close("upper", normalized.upper, 2.9444389791664403, 1e-15, 0.0);
    assert_eq!(normalized.verdict, Some(Hypothesis::H0));
    // Logistic [0, 2]: -8.35, H0.
    let params = SprtSettings { elo1: 2.0, model: EloModel::Logistic, ..Default::default() };
    let logistic = sprt(&p, &params).unwrap();
    assert_close("llr", logistic.llr, -8.34820881516847, 1e-7, 0.0);
    assert_eq!(logistic.verdict, Some(Hypothesis::H0));
    // Logistic [-3, 1] (Fishtest's self-test): 2.13, still running.
    let params = SprtSettings { elo0: -3.0, elo1: 1.0, model: EloModel::Logistic, ..Default::default() };
    assert_eq!(sprt(&p, &params).unwrap().verdict, None);
    // OpenBench's sample: normalized [0, 2] gives 3.68, above 2.94: H1.
    let ob = Pentanomial { counts: [39, 8843, 26675, 9240, 44] };
    let params = SprtSettings { elo1: 2.0, ..Default::default() };
    assert_eq!(sprt(&ob, &params).unwrap().verdict, Some(Hypothesis::H1));
}

#[test]
fn conversions_and_moments_match_fishtest() {
    let p = Pentanomial { counts: [10789, 19328, 33806, 19402, 10543] };
    let close = |what: &str, got: f64, want: f64| assert_close(what, got, want, 1e-9, 1e-12);
    close("sigma per game", sigma_per_game(&p), 0.4064483396145526);
    close("nelo of -3 elo", nelo_of_elo(-3.0, &p), -3.690414195228605);
    close("nelo of 1 elo", nelo_of_elo(1.0, &p), 1.2301652401289018);
    close("elo of 5 nelo", elo_of_nelo(5.0, &p), 4.064668826946143);
    let m = Distribution::from_outcomes(&p).moments();
    close("mean", m.mean, 0.49888673456342947);
    close("variance", m.variance, 0.08260012638771336);
    close("skewness", m.skewness, -0.001659719679906088);
    close("excess kurtosis", m.excess_kurtosis, -0.6821199606255011);
}

#[test]
fn bayeselo_helpers_match_fishtest() {
    let wdl = Wdl { wins: 65388, draws: 56553, losses: 65804 };
    let close = |what: &str, got: f64, want: f64| assert_close(what, got, want, 1e-9, 0.0);
    let drawelo = draw_elo(&wdl);
    close("drawelo", drawelo, 108.00564495997543);
    close("bayeselo_to_elo", bayeselo_to_elo(5.0, drawelo), 4.546351480567138);
    let (belo, dlo) = elo_to_bayeselo(5.0, 0.3).unwrap();
    close("elo_to_bayeselo elo", belo, 5.494707952576547);
    close("elo_to_bayeselo drawelo", dlo, 107.56419621267432);
    close("LLRlegacy", llr_bayeselo(&wdl, 0.0, 5.0).unwrap(), -30.791679885598114);
    close("drawelo all draws", draw_elo(&Wdl { wins: 0, draws: 30, losses: 0 }), 1790.8542923844493);
}

/// Replays a test pair by pair through `update_SPRT`'s logic (LLR, dynamic overshoot, stop
/// rule) and checks it stops where Fishtest's did, with the same LLR and corrections.
fn replay(sequence: &str, params: SprtSettings, batch: u64, want: (usize, f64, f64, f64, Hypothesis, [u64; 5])) {
    let mut p = Pentanomial::default();
    let mut overshoot = Overshoot::default();
    let digits: Vec<usize> = sequence.bytes().map(|b| usize::from(b - b'0')).collect();
    for (batch_index, chunk) in digits.chunks(batch as usize).enumerate() {
        for &half_points in chunk {
            p.add(half_points);
        }
        let llr = llr(&p, &params).unwrap();
        assert_eq!(overshoot.update(p.pairs(), llr, batch), OvershootUpdate::Valid);
        let result = SprtResult::judge(llr, params.bounds(), overshoot.corrections());
        let played = (batch_index + 1) * batch as usize;
        if let Some(verdict) = result.verdict {
            let (pairs, llr_want, o0, o1, verdict_want, counts) = want;
            assert_eq!((played, verdict, p.counts), (pairs, verdict_want, counts));
            assert_close("final llr", result.llr, llr_want, 1e-7, 0.0);
            let (got0, got1) = overshoot.corrections();
            assert_close("o0", got0, o0, 1e-6, 1e-12);
            assert_close("o1", got1, o1, 1e-6, 1e-12);
            return;
        }
    }
    panic!("the replay never stopped; Fishtest stopped after {} pairs", want.0);
}

#[test]
fn sprt_with_overshoot_stops_where_fishtest_does() {
    // Seeded random pairs (Python's random.Random(1), pair probabilities 0.08, 0.22, 0.38,
    // 0.22, 0.10), normalized [0, 20], one pair per update.
    let seq = concat!(
        "133122231032302314400242120122111210322143123342322233220132123222232220034221243231242212403333",
        "322203212222222201123333132100311220121132220221132123001313221432122222014323243210303421343222",
        "122112122330124321234233241311413232213243121003332232211132421330211301421113142441121200412220",
        "444112423212211142224222233222221010200213231230413432124131402434333121321043223222102220211132",
        "221022223312212244120023133233233233421112303322130432144133232442321214412211130120223112121333",
        "422332211313243412222220222233222101233242323421222022232333232222224333322133213220232220243232",
        "113103222312331212133214330322233121424321211323133212211023103342231312221132213224403322242331",
        "401202123400301110233322242104222220221322333314143301322402212330213102321333221222342122433323",
        "311221220322122322142204244434431224333242224211324123012111220032130233132332224333411332223320",
        "321130123342222234222222241243222432343223232221220113214123323232431141012423312422244122211123",
        "3321221241312412234",
    );
    let params = SprtSettings { elo0: 0.0, elo1: 20.0, ..Default::default() };
    replay(
        seq,
        params,
        1,
        (979, 2.9538771990186623, 0.041499347243741436, 0.050028840623746816, Hypothesis::H1, [77, 197, 372, 233, 100]),
    );

    // random.Random(7), probabilities 0.12, 0.24, 0.36, 0.2, 0.08, logistic [-3, 5], two
    // pairs per update.
    let seq = concat!(
        "112022020200231124224031101312222001221221321223314023120232312222342202243122021003112302233312",
        "134111122102224222203333220200111001020321112134220011310421202432121323113433331210011242444211",
        "112332230233321313422431113313421210422423311112121312232322202103123212230211322332222222242341",
        "243112010233122134142243122111302201220434010311233113220022042303032124112101011131211010321240",
        "3223222413222101031103321112121442141102221201",
    );
    let params = SprtSettings { elo0: -3.0, elo1: 5.0, model: EloModel::Logistic, ..Default::default() };
    replay(
        seq,
        params,
        2,
        (430, -2.9702529982417114, 0.029058401596154654, 0.0, Hypothesis::H0, [58, 115, 144, 78, 35]),
    );
}

#[test]
fn edge_cases_stay_finite() {
    let cases = [[0, 0, 0, 0, 0], [0, 0, 7, 0, 0], [0, 0, 0, 0, 9], [9, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]];
    for counts in cases {
        let p = Pentanomial { counts };
        let e = elo_estimate(&p);
        let n = nelo_estimate(&p);
        for v in [e.elo, e.lower, e.upper, e.los, n.nelo, n.lower, n.upper] {
            assert!(v.is_finite(), "{counts:?}: {e:?} {n:?}");
        }
        assert!(e.lower <= e.elo && e.elo <= e.upper, "{counts:?}: {e:?}");
        for model in [EloModel::Normalized, EloModel::Logistic] {
            let s = sprt(&p, &SprtSettings { model, ..Default::default() }).unwrap();
            assert!(s.llr.is_finite() && s.verdict.is_none(), "{counts:?} {model}: {s:?}");
        }
        assert!(llr_normalized_alt(&p, 0.0, 5.0).is_finite());
    }
    // Bounds no distribution can reach are an error, not a panic.
    let p = Pentanomial { counts: [10, 20, 40, 20, 10] };
    assert!(matches!(llr_logistic(&p, 0.0, 1e6), Err(analysis::Error::NoEstimate { .. })));
    assert!(llr_normalized(&p, 0.0, 1e5).is_err());
}
