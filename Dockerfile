# syntax=docker/dockerfile:1
#
# The xqfarm image: `xqfarm` (coordinator, worker, every command) and `xqengine` (the UCI/UCCI
# engine) on Debian bookworm-slim, running as the unprivileged user xqfarm (uid 10001).
#
#   docker build -t registry.example.com/xqfarm:0.1.0 .
#   docker run --rm -p 7878:7878 -v xqfarm-data:/data registry.example.com/xqfarm:0.1.0 \
#     serve --listen 0.0.0.0:7878 --db /data/farm.db --data /data/farm-data --token T
#
# NOT BUILT HERE: the machine this was written on has a docker client but no container engine,
# so this file is only linted (hadolint and deploy/k8s/test.sh's own checks), never built or run.
# deploy/k8s/ runs this image on Kubernetes.
#
# Needs BuildKit (the default builder of current Docker) for the cache mounts. No protoc: the
# protocol is compiled by protox, in Rust. The C parts (bundled SQLite, zstd, lz4, ring) build
# with the rust image's gcc. The build context has no .git, so xqengine's `id name` carries
# the commit "unknown"; the farm checks builds by their bench signature, not by that.

FROM rust:1.95-bookworm AS builder
WORKDIR /src
COPY . .
# The workspace's release profile (README: about 6 minutes cold on 2 cores): the cache mounts keep
# the registry and the compiled dependencies between builds. The binaries are copied out of the
# cached target directory in the same step, since a cache mount is not part of the image.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked -p xqfarm -p xqengine \
    && mkdir -p /out \
    && cp target/release/xqfarm target/release/xqengine /out/

FROM debian:bookworm-slim
# ca-certificates for whatever is added to this image; xqfarm itself trusts only the farm's own
# CA (--ca-cert), never the system roots. Debian's versions are not pinned: bookworm's security
# updates replace them, and a pin would break the build on the next one.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 xqfarm \
    && useradd --system --uid 10001 --gid xqfarm --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin xqfarm \
    && mkdir -p /data \
    && chown xqfarm:xqfarm /data
COPY --from=builder /out/xqfarm /out/xqengine /usr/local/bin/
# The xqfarm user by number, not by name: Kubernetes' runAsNonRoot can only check a numeric user.
USER 10001:10001
# The coordinator's database and Parquet data, the worker's spool: mount a volume here.
WORKDIR /data
# 7878: gRPC and the web pages (`serve --listen`); 9464: Prometheus metrics (`--metrics-listen`).
EXPOSE 7878 9464
# xqfarm handles SIGTERM itself (the worker drains, the coordinator exports), so it runs as the
# container's first process, with no shell or init in between.
ENTRYPOINT ["xqfarm"]
CMD ["--help"]
