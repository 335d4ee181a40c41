# Stand-in for rust:1-bookworm: the machine's own Rust toolchain (rustup's proxies and one
# toolchain) under /usr/local/cargo and /usr/local/rustup, where the official image keeps them and
# where the kgc Dockerfile copies them from.
ARG BASE
FROM ${BASE}
COPY rustup /usr/local/rustup
COPY cargo-bin /usr/local/cargo/bin
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:$PATH
RUN cargo --version && rustc --version
LABEL org.kgc.stand-in=rust:1-bookworm
