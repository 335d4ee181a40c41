# Stand-in for node:24-bookworm (the build image): the slim stand-in with the compilers and tools
# the official image carries and the build uses (a C toolchain for the Rust linker and native
# npm packages, python3, git, CA certificates for cargo and npm), and the certificate authorities
# this machine added (/usr/local/share/ca-certificates: a proxy between it and the registries),
# trusted by cargo (the system store) and npm (NODE_EXTRA_CA_CERTS). Only build stages use it:
# the runtime image never carries them.
ARG BASE
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates gcc g++ libc6-dev make python3 git \
  && rm -rf /var/lib/apt/lists/*
COPY ca-certificates/ /usr/local/share/ca-certificates/
RUN update-ca-certificates
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
LABEL org.kgc.stand-in=node:24-bookworm
