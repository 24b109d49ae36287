# Multi-stage image: build with Debian's -dev packages, run on bookworm-slim
# with only the shared libraries the executables load. Data and models come in
# through /work.
#   docker build -t nmt .
#   docker run --rm -v "$PWD/work:/work" nmt                 # the sample demo
#   docker run --rm -v "$PWD/work:/work" nmt trainer --config /work/my.json --out /work/run
#   docker run --rm -p 8080:8080 -v "$PWD/work:/work" nmt translator --model /work/run --serve --host 0.0.0.0
#   docker run --rm -p 8080:8080 -v "$PWD/models:/models:ro" nmt translator --serve --models-dir /models --host 0.0.0.0
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake ninja-build pkg-config \
      libtorch-dev libgloo-dev libdnnl-dev libsentencepiece-dev nlohmann-json3-dev libspdlog-dev libcli11-dev zlib1g-dev \
      libcpp-httplib-dev libjemalloc-dev libicu-dev libgumbo-dev libcld2-dev libzip-dev libpugixml-dev libyaml-cpp-dev libsqlite3-dev libopenblas0-pthread \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole source tree: .dockerignore keeps out what this build does not read
# (build outputs, runs, downloaded data, docs, tests, benchmarks, maintainers'
# scripts), so a new folder of code cannot be forgotten here.
COPY . .
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNMT_BUILD_TESTS=OFF -DNMT_BUILD_BENCH=OFF \
      -DCMAKE_INSTALL_PREFIX=/opt/nmt \
 && cmake --build build -j"$(nproc)" \
 && cmake --install build --strip
# Only the libraries the executables load (ldd lists their whole NEEDED tree),
# not every package Debian's libtorch1.13 depends on. glibc and libstdc++ stay
# the base image's own (the same bookworm versions).
RUN mkdir -p /opt/nmt/lib/deps \
 && ! ldd /opt/nmt/bin/trainer /opt/nmt/bin/translator /opt/nmt/lib/nmt/libnmt_spm_bridge.so | grep 'not found' \
 && ldd /opt/nmt/bin/trainer /opt/nmt/bin/translator /opt/nmt/lib/nmt/libnmt_spm_bridge.so \
    | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u \
    | grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libmvec|libgcc_s|libstdc\+\+)\.so' \
    | xargs cp -L -t /opt/nmt/lib/deps/

FROM debian:bookworm-slim
RUN useradd --create-home --uid 1000 nmt \
 && mkdir -p /work && chown nmt:nmt /work
COPY --from=build /opt/nmt /opt/nmt
COPY examples/sample /opt/nmt/share/sample
COPY configs/sample.json /opt/nmt/share/sample.json
COPY scripts/docker_demo.sh /opt/nmt/bin/nmt-demo
ENV PATH=/opt/nmt/bin:$PATH LD_LIBRARY_PATH=/opt/nmt/lib/deps
USER nmt
# /work is where a bind mount (-v HOST_DIR:/work) brings data in and takes
# models out. No VOLUME line: buildah would mount an anonymous volume over the
# bind mount, and docker needs none for -v.
WORKDIR /work
# translator --serve's default port.
EXPOSE 8080
CMD ["nmt-demo"]
