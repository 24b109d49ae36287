# Multi-stage image: build with Debian's -dev packages, run on bookworm-slim
# with only the runtime libraries. Data and models come in through /work.
#   docker build -t nmt .
#   docker run --rm -v "$PWD/work:/work" nmt                 # the sample demo
#   docker run --rm -v "$PWD/work:/work" nmt trainer --config /work/my.json --out /work/run
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake ninja-build pkg-config \
      libtorch-dev libsentencepiece-dev nlohmann-json3-dev libspdlog-dev libcli11-dev zlib1g-dev \
      libcpp-httplib-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY app ./app
COPY model ./model
COPY data ./data
COPY vocab ./vocab
COPY eval ./eval
COPY train ./train
COPY util ./util
COPY serve ./serve
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNMT_BUILD_TESTS=OFF -DNMT_BUILD_BENCH=OFF \
      -DCMAKE_INSTALL_PREFIX=/opt/nmt \
 && cmake --build build -j"$(nproc)" \
 && cmake --install build --strip

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libtorch1.13 libopenblas0-pthread libsentencepiece0 zlib1g \
      libcpp-httplib0.11 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 1000 nmt \
 && mkdir -p /work && chown nmt:nmt /work
COPY --from=build /opt/nmt /opt/nmt
COPY data/sample /opt/nmt/share/sample
COPY configs/sample.json /opt/nmt/share/sample.json
COPY scripts/docker_demo.sh /opt/nmt/bin/nmt-demo
ENV PATH=/opt/nmt/bin:$PATH
USER nmt
# /work is where a bind mount (-v HOST_DIR:/work) brings data in and takes
# models out. No VOLUME line: buildah would mount an anonymous volume over the
# bind mount, and docker needs none for -v.
WORKDIR /work
CMD ["nmt-demo"]
