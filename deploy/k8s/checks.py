#!/usr/bin/env python3
"""The project's own checks of deploy/k8s, deploy/grafana and the Dockerfile, beyond the
Kubernetes schemas (kubernetes-validate) and hadolint that test.sh runs first.

    python3 deploy/k8s/checks.py        # from the repository's root; needs PyYAML

Each check prints `ok: WHAT` or `FAIL: WHAT: WHY`; the last line counts them and the exit status
is 1 when any failed. The metric names and command-line flags are read from the Rust sources
(coordinator/src/metrics.rs, xqfarm/src/farm_cmds.rs), so a renamed metric or flag fails here.
"""

import json
import re
import sys
from pathlib import Path

import yaml

K8S = Path("deploy/k8s")
GRAFANA = Path("deploy/grafana/xqfarm.json")
DOCKERFILE = Path("Dockerfile")
DOCKERIGNORE = Path(".dockerignore")
METRICS_RS = Path("coordinator/src/metrics.rs")
FARM_CMDS_RS = Path("xqfarm/src/farm_cmds.rs")

# The metrics the dashboard must show (issue 14); each must also exist in metrics.rs.
DASHBOARD_METRICS = {
    "xqfarm_rpc_requests_total",
    "xqfarm_rpc_duration_seconds",
    "xqfarm_active_leases",
    "xqfarm_pending_pairs",
    "xqfarm_games_total",
    "xqfarm_export_lag_games",
    "xqfarm_storage_transaction_seconds",
}
# The worker stops within ABANDON_WAIT + DRAIN_WAIT = 15 s of SIGTERM (worker/src/client.rs).
MIN_WORKER_GRACE_SECONDS = 20


class Failure(Exception):
    pass


def require(condition, why):
    if not condition:
        raise Failure(why)


def load_all(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def one(path, kind):
    docs = [d for d in load_all(path) if d.get("kind") == kind]
    require(len(docs) == 1, f"{path}: expected one {kind}, found {len(docs)}")
    return docs[0]


def container(pod_spec, name):
    found = [c for c in pod_spec["containers"] if c["name"] == name]
    require(len(found) == 1, f"no container named {name}")
    return found[0]


def flag_values(args):
    """`--flag value` pairs of a container's args (every xqfarm flag used here takes a value)."""
    values = {}
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            require(i + 1 < len(args), f"{arg} has no value")
            values[arg] = str(args[i + 1])
    return values


def cpu_millis(quantity):
    """A CPU quantity ("4", 4, "500m", "0.5") in millicores."""
    text = str(quantity)
    match = re.fullmatch(r"([0-9]+)m|([0-9]+(?:\.[0-9]+)?)", text)
    require(match, f"CPU quantity {text!r} is not a number of CPUs or millicores")
    return int(match.group(1)) if match.group(1) else round(float(match.group(2)) * 1000)


def mounted_at(pod_spec, ctr, path):
    """The volume of `ctr` whose mount holds `path`: its entry in the pod's volumes, or
    {"name": NAME} alone for a StatefulSet's claim (no entry there); None when not mounted."""
    for mount in ctr.get("volumeMounts", []):
        if path == mount["mountPath"] or path.startswith(mount["mountPath"].rstrip("/") + "/"):
            volumes = [v for v in pod_spec.get("volumes", []) if v["name"] == mount["name"]]
            return volumes[0] if volumes else {"name": mount["name"]}
    return None


# ---------------------------------------------------------------------------------------------
# What the Rust sources declare


def metric_families():
    """{name: type} of every family `render` in coordinator/src/metrics.rs writes."""
    text = METRICS_RS.read_text()
    families = dict(re.findall(r'family\(\s*&mut out,\s*"(xqfarm_[a-z0-9_]+)",\s*"([a-z]+)"', text))
    require(families, f"no `family(&mut out, \"xqfarm_...\", \"type\", ...)` call found in {METRICS_RS}")
    return families


def series_names(families):
    """Every series name a scrape can show: histograms add _bucket, _sum and _count."""
    names = set()
    for name, kind in families.items():
        names.add(name)
        if kind == "histogram":
            names.update(f"{name}{suffix}" for suffix in ("_bucket", "_sum", "_count"))
    return names


def cli_flags(struct):
    """The long flags of `pub struct STRUCT` in xqfarm/src/farm_cmds.rs (clap derive)."""
    text = FARM_CMDS_RS.read_text()
    match = re.search(r"pub struct " + struct + r" \{(.*?)\n\}", text, re.S)
    require(match, f"no `pub struct {struct}` in {FARM_CMDS_RS}")
    flags = set()
    attr = None
    for line in match.group(1).splitlines():
        line = line.strip()
        if line.startswith("#[arg("):
            attr = line
        elif re.match(r"^[a-z_]+:", line):
            if attr and re.search(r"\blong\b", attr):
                named = re.search(r'long\s*=\s*"([^"]+)"', attr)
                flags.add("--" + (named.group(1) if named else line.split(":")[0].replace("_", "-")))
            attr = None
    require(flags, f"no flags found in {struct}")
    return flags


# ---------------------------------------------------------------------------------------------
# PromQL: the metric names an expression selects


PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
    "unless", "offset", "inf", "nan",
}


def promql_metrics(expr):
    """Metric names selected by `expr`: identifiers that are not functions, keywords, labels
    (inside `{...}`, `by (...)`), ranges or strings. Go-template parts (`<<.Series>>`) and
    Grafana variables (`$__rate_interval`) are dropped first."""
    text = re.sub(r"<<[^>]*>>", " ", expr)
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', " ", text)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", " ", text)
    text = re.sub(r"\b[0-9][0-9.]*(ms|[smhdwy])?\b", " ", text)  # numbers, durations (offset 5m)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = m.group(0)
        following = text[m.end():].lstrip()
        if following.startswith("(") or word.lower() in PROMQL_WORDS:
            continue
        names.add(word)
    return names


# ---------------------------------------------------------------------------------------------
# The checks


def check_metric_families():
    families = metric_families()
    return f"{METRICS_RS} exports {len(families)} metric families: {', '.join(families)}", families


def check_kustomization():
    kz = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    resources = kz.get("resources", [])
    missing = [r for r in resources if not (K8S / r).is_file()]
    require(not missing, f"kustomization.yaml names missing resources: {missing}")
    listed = {K8S / r for r in resources}
    top_level = {p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml"}
    unlisted = sorted(str(p) for p in top_level - listed)
    require(not unlisted, f"manifests in deploy/k8s not listed in kustomization.yaml: {unlisted}")
    generated = {}
    for gen in kz.get("secretGenerator", []):
        sources = [f.split("=", 1)[-1] for f in gen.get("files", [])] + list(gen.get("envs", []))
        for source in sources:
            require(source.startswith("secrets/"),
                    f"secret {gen['name']} reads {source}, outside secrets/ (which git ignores)")
        generated[gen["name"]] = sources
    gitignore = (K8S / "secrets/.gitignore").read_text().split()
    require("*" in gitignore, "deploy/k8s/secrets/.gitignore does not ignore everything (`*`)")
    images = {i["name"] for i in kz.get("images", [])}
    return (f"kustomization.yaml: {len(resources)} resources exist, every top-level manifest is "
            f"listed; {len(generated)} Secrets from user-supplied files under secrets/ (git-ignored): "
            + ", ".join(f"{n} <- {' '.join(s)}" for n, s in generated.items())
            + f"; image {', '.join(sorted(images))} rewritten"), generated, images


def secrets_referenced(pod_spec):
    names = {v["secret"]["secretName"] for v in pod_spec.get("volumes", []) if "secret" in v}
    for ctr in pod_spec["containers"]:
        for env in ctr.get("env", []):
            ref = env.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                names.add(ref["name"])
    return names


def check_secrets_and_images(generated, images):
    coordinator = one(K8S / "coordinator.yaml", "StatefulSet")["spec"]["template"]["spec"]
    worker = one(K8S / "worker.yaml", "Deployment")["spec"]["template"]["spec"]
    used = secrets_referenced(coordinator) | secrets_referenced(worker)
    require(used == set(generated),
            f"Secrets used by the pods {sorted(used)} != Secrets generated {sorted(generated)}")
    for spec in (coordinator, worker):
        for ctr in spec["containers"]:
            name, _, tag = ctr["image"].partition(":")
            require(name in images, f"image {ctr['image']} is not rewritten by kustomization.yaml's images")
            require(tag and tag != "latest", f"image {ctr['image']}: give a tag other than latest")
    env_keys = {e["valueFrom"]["secretKeyRef"]["key"] for c in worker["containers"]
                for e in c.get("env", []) if "secretKeyRef" in e.get("valueFrom", {})}
    require(env_keys == {"XQFARM_TOKEN"}, f"worker secret env keys {env_keys} != {{XQFARM_TOKEN}}")
    return f"pods use exactly the generated Secrets ({', '.join(sorted(used))}); images tagged, not latest"


def check_worker():
    deployment = one(K8S / "worker.yaml", "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    ctr = container(spec, "worker")
    args = [str(a) for a in ctr["args"]]
    require(args[0] == "worker", f"worker container runs `xqfarm {args[0]}`, not `xqfarm worker`")
    flags = flag_values(args[1:])
    require("--concurrency" in flags, "worker args have no --concurrency")
    concurrency = int(flags["--concurrency"])
    requests = ctr["resources"]["requests"]["cpu"]
    limits = ctr["resources"]["limits"]["cpu"]
    require(cpu_millis(requests) == concurrency * 1000,
            f"--concurrency {concurrency} != CPU request {requests!r}: one game per CPU")
    require(cpu_millis(limits) == cpu_millis(requests),
            f"CPU limit {limits!r} != CPU request {requests!r}")
    grace = spec.get("terminationGracePeriodSeconds", 30)
    require(grace >= MIN_WORKER_GRACE_SECONDS,
            f"terminationGracePeriodSeconds {grace} < {MIN_WORKER_GRACE_SECONDS}: the worker needs "
            "about 15 s after SIGTERM to hand back its games and deliver its spool")
    spool = mounted_at(spec, ctr, flags.get("--spool", ""))
    require(spool and "emptyDir" in spool, f"--spool {flags.get('--spool')} is not on an emptyDir volume")
    ca = mounted_at(spec, ctr, flags.get("--ca-cert", ""))
    require(ca and "secret" in ca, f"--ca-cert {flags.get('--ca-cert')} is not on a Secret volume")
    require(flags["--coordinator"].startswith("https://"), "workers should dial https:// (TLS)")
    return (f"worker: --concurrency {concurrency} = CPU request {requests} = limit {limits}; "
            f"terminationGracePeriodSeconds {grace} >= {MIN_WORKER_GRACE_SECONDS}; "
            f"--spool on emptyDir; --ca-cert from Secret {ca['secret']['secretName']}")


def check_coordinator():
    sts = one(K8S / "coordinator.yaml", "StatefulSet")
    require(sts["spec"].get("replicas", 1) == 1, "the coordinator must have exactly one replica (SQLite)")
    spec = sts["spec"]["template"]["spec"]
    ctr = container(spec, "coordinator")
    args = [str(a) for a in ctr["args"]]
    require(args[0] == "serve", f"coordinator container runs `xqfarm {args[0]}`, not `xqfarm serve`")
    flags = flag_values(args[1:])
    claims = {t["metadata"]["name"] for t in sts["spec"].get("volumeClaimTemplates", [])}
    for flag in ("--db", "--data"):
        vol = mounted_at(spec, ctr, flags.get(flag, ""))
        require(vol and vol["name"] in claims, f"{flag} {flags.get(flag)} is not on a volumeClaimTemplate")
    for flag in ("--token-file", "--tls-cert", "--tls-key"):
        vol = mounted_at(spec, ctr, flags.get(flag, ""))
        require(vol and "secret" in vol, f"{flag} {flags.get(flag)} is not on a Secret volume")
    tls = next(v for v in spec["volumes"] if v["name"] == mounted_at(spec, ctr, flags["--tls-cert"])["name"])
    require(flags["--tls-cert"].endswith("/tls.crt") and flags["--tls-key"].endswith("/tls.key"),
            "--tls-cert/--tls-key should be the kubernetes.io/tls keys tls.crt and tls.key")
    ports = {p["name"]: p["containerPort"] for p in ctr["ports"]}
    listen_port = int(flags["--listen"].rsplit(":", 1)[1])
    metrics_port = int(flags["--metrics-listen"].rsplit(":", 1)[1])
    require(ports.get("grpc-web") == listen_port, f"containerPort grpc-web != --listen port {listen_port}")
    require(ports.get("metrics") == metrics_port, f"containerPort metrics != --metrics-listen port {metrics_port}")
    service = one(K8S / "service.yaml", "Service")
    require(service["spec"].get("type", "ClusterIP") == "ClusterIP", "the Service should be ClusterIP")
    svc_ports = {p["name"]: p["port"] for p in service["spec"]["ports"]}
    require(svc_ports == {"grpc-web": 7878, "metrics": 9464}, f"Service ports {svc_ports}")
    require(service["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items(),
            "the Service's selector does not select the coordinator's pods")
    require(sts["spec"]["serviceName"] == service["metadata"]["name"], "StatefulSet serviceName != Service")
    annotations = service["metadata"].get("annotations", {})
    require(annotations.get("prometheus.io/port") == str(metrics_port)
            and annotations.get("prometheus.io/path") == "/metrics",
            f"Service prometheus.io annotations {annotations} do not point at :{metrics_port}/metrics")
    return (f"coordinator: 1 replica; --db, --data on claim {', '.join(sorted(claims))}; tokens and TLS "
            f"(Secret {tls['secret']['secretName']}) from Secrets; --listen :{listen_port} and "
            f"--metrics-listen :{metrics_port} = container and Service ports; scrape annotations")


def check_flags():
    checked = []
    for path, kind, name, struct in (
        (K8S / "coordinator.yaml", "StatefulSet", "coordinator", "ServeArgs"),
        (K8S / "worker.yaml", "Deployment", "worker", "WorkerArgs"),
    ):
        args = [str(a) for a in container(one(path, kind)["spec"]["template"]["spec"], name)["args"]]
        known = cli_flags(struct)
        used = [a for a in args if a.startswith("--")]
        unknown = [a for a in used if a not in known]
        require(not unknown, f"{path}: `xqfarm {args[0]}` has no flag {unknown} ({FARM_CMDS_RS} {struct})")
        checked.append(f"xqfarm {args[0]} {' '.join(used)}")
    return f"every flag exists in {FARM_CMDS_RS}: " + "; ".join(checked)


def check_hpa_and_adapter(families):
    hpa = one(K8S / "optional/hpa.yaml", "HorizontalPodAutoscaler")
    worker = one(K8S / "worker.yaml", "Deployment")
    target = hpa["spec"]["scaleTargetRef"]
    require(target["kind"] == "Deployment" and target["name"] == worker["metadata"]["name"],
            f"the HPA scales {target}, not the worker Deployment")
    wanted = {m["external"]["metric"]["name"] for m in hpa["spec"]["metrics"] if m["type"] == "External"}
    require("xqfarm_pending_pairs" in wanted, "the HPA does not scale on xqfarm_pending_pairs")
    adapter = one(K8S / "optional/prometheus-adapter-config.yaml", "ConfigMap")
    config = yaml.safe_load(adapter["data"]["config.yaml"])
    rules = config.get("externalRules", [])
    exposed = {r["name"]["as"] for r in rules}
    require(wanted <= exposed, f"the HPA wants {sorted(wanted - exposed)}, which no externalRules entry exposes")
    known = series_names(families)
    for rule in rules:
        for query in (rule["seriesQuery"], rule["metricsQuery"]):
            unknown = promql_metrics(query) - known
            require(not unknown, f"adapter rule {rule['name']['as']}: unknown metrics {unknown} in {query!r}")
        require("<<.LabelMatchers>>" in rule["metricsQuery"],
                f"adapter rule {rule['name']['as']} drops <<.LabelMatchers>> (the HPA's namespace)")
    pending = next(r for r in rules if r["name"]["as"] == "xqfarm_pending_pairs")
    require(pending["metricsQuery"].replace(" ", "").startswith("sum("),
            "xqfarm_pending_pairs must be summed over runs")
    scrape = yaml.safe_load((K8S / "optional/prometheus-scrape-config.yml").read_text())
    job = scrape["scrape_configs"][0]
    targets = [t for s in job["static_configs"] for t in s["targets"]]
    labels = {k: v for s in job["static_configs"] for k, v in s.get("labels", {}).items()}
    require(job.get("metrics_path") == "/metrics", "scrape job metrics_path is not /metrics")
    require(all(t.endswith(":9464") for t in targets), f"scrape targets {targets} are not port 9464")
    require("namespace" in labels, "the scrape job sets no namespace label (the adapter's rules need one)")
    return (f"HPA scales Deployment {target['name']} on {', '.join(sorted(wanted))}, each exposed by an "
            f"adapter externalRules entry over known metrics; scrape config -> {', '.join(targets)}/metrics")


def check_grafana(families):
    dash = json.loads(GRAFANA.read_text())
    require(35 <= dash.get("schemaVersion", 0) <= 45, f"schemaVersion {dash.get('schemaVersion')}")
    variables = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
    ds = variables.get("datasource")
    require(ds and ds["type"] == "datasource" and ds["query"] == "prometheus",
            "no `datasource` templating variable of type prometheus")
    known = series_names(families)
    missing_source = DASHBOARD_METRICS - set(families)
    require(not missing_source, f"metrics {sorted(missing_source)} are not exported by {METRICS_RS}")
    seen, ids, exprs = set(), set(), 0
    for panel in dash["panels"]:
        require(panel["id"] not in ids, f"panel id {panel['id']} twice")
        ids.add(panel["id"])
        require(panel.get("datasource", {}).get("uid") == "${datasource}",
                f"panel {panel['title']!r} does not use the ${{datasource}} variable")
        for target in panel.get("targets", []):
            expr = target["expr"]
            exprs += 1
            names = promql_metrics(expr)
            require(names, f"panel {panel['title']!r}: no metric in {expr!r}")
            unknown = names - known
            require(not unknown, f"panel {panel['title']!r}: unknown metrics {sorted(unknown)} in {expr!r}")
            if "histogram_quantile" in expr:
                require(all(n.endswith("_bucket") for n in names),
                        f"panel {panel['title']!r}: histogram_quantile over a non-bucket series")
            for name in names:
                seen.add(re.sub(r"_(bucket|sum|count)$", "", name) if name not in families else name)
    not_shown = DASHBOARD_METRICS - seen
    require(not not_shown, f"the dashboard shows none of {sorted(not_shown)}")
    return (f"{GRAFANA}: schemaVersion {dash['schemaVersion']}, {len(ids)} panels, {exprs} queries over "
            f"metrics {METRICS_RS} exports, every required metric shown")


def dockerfile_instructions():
    """(instruction, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    lines, current = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        current += " " + stripped.rstrip("\\").strip() if current else stripped.rstrip("\\").strip()
        if not stripped.endswith("\\"):
            lines.append(current)
            current = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def check_dockerfile():
    instructions = dockerfile_instructions()
    stages, aliases = [], set()
    for op, rest in instructions:
        if op == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            image = words[0]
            stages.append([])
            if len(words) >= 3 and words[1].upper() == "AS":
                aliases.add(words[2])
            if image not in aliases and image != "scratch":
                require(":" in image or "@" in image, f"FROM {image}: no tag")
                require(not image.endswith(":latest"), f"FROM {image}: the `latest` tag")
        else:
            require(stages, f"{op} before the first FROM")
            stages[-1].append((op, rest))
    require(len(stages) >= 2, f"{len(stages)} FROM: expected a multi-stage build (builder + runtime)")
    final = stages[-1]
    users = [rest.split(":")[0].strip() for op, rest in final if op == "USER"]
    require(users, "the final stage has no USER: it would run as root")
    require(users[-1] not in ("root", "0"), f"the final stage's USER is {users[-1]}")
    require(any(op == "ENTRYPOINT" for op, _ in final), "the final stage has no ENTRYPOINT")
    exposed = {p for op, rest in final if op == "EXPOSE" for p in rest.split()}
    require({"7878", "9464"} <= exposed, f"EXPOSE {sorted(exposed)}: expected 7878 and 9464")
    build = " ".join(rest for op, rest in stages[0] if op == "RUN")
    require(re.search(r"cargo build --release.*-p xqfarm.*-p xqengine", build),
            "the builder does not run `cargo build --release -p xqfarm -p xqengine`")
    copied = " ".join(rest for op, rest in final if op == "COPY")
    require("xqfarm" in copied and "xqengine" in copied, "the final stage does not copy xqfarm and xqengine")
    ignored = {line.strip() for line in DOCKERIGNORE.read_text().splitlines()}
    for entry in (".git", "target", "deploy/k8s/secrets"):
        require(entry in ignored, f".dockerignore does not exclude {entry}")
    return (f"Dockerfile: {len(stages)} stages, final USER {users[-1]} (not root), tagged bases (no latest), "
            "ENTRYPOINT, EXPOSE 7878 9464; .dockerignore excludes .git, target and deploy/k8s/secrets")


def main():
    passed, failed = 0, 0

    def run(name, fn, *args):
        nonlocal passed, failed
        try:
            result = fn(*args)
            message = result[0] if isinstance(result, tuple) else result
            print(f"ok: {message}")
            passed += 1
            return result
        except Exception as e:  # noqa: BLE001 - a file of an unexpected shape fails its check only
            why = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
            print(f"FAIL: {name}: {why}")
            failed += 1
            return None

    found = run("metric families", check_metric_families)
    families = found[1] if found else {}
    kz = run("kustomization", check_kustomization)
    if kz:
        run("secrets and images", check_secrets_and_images, kz[1], kz[2])
    run("worker", check_worker)
    run("coordinator", check_coordinator)
    run("command-line flags", check_flags)
    run("HPA and prometheus-adapter", check_hpa_and_adapter, families)
    run("Grafana dashboard", check_grafana, families)
    run("Dockerfile", check_dockerfile)
    print(f"checks.py: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
