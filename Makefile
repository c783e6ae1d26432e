# Myri: the two commands of the README are `make run` and `make check`.
#   make          build build/myri (release, strict warnings)
#   make run      build, then run the main job on the built-in default scenario
#   make check    build, then run the whole test suite, plain and under ASan+UBSan
#   make bench    build, then run every benchmark in bench/
#   make check-owner  build build-owner/ with the fabric's channel-half owner check, run the fabric tests
#   make install  install program, library, headers and pkg-config file (PREFIX=/usr/local)
#   make fuzz     build the libFuzzer targets with clang (build-fuzz/)
#   make fuzz-long  build them, then run each for FUZZ_SECONDS (default 60); fails on any crash
BUILD   ?= build
ASAN    ?= build-asan
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))

.PHONY: all deps configure run check check-fast check-asan check-owner bench install fuzz fuzz-long clean

all: $(BUILD)/myri

deps:
	@sh scripts/deps.sh

$(BUILD)/Makefile: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

$(BUILD)/myri: deps $(BUILD)/Makefile FORCE
	cmake --build $(BUILD) -j $(JOBS)

run: $(BUILD)/myri
	$(BUILD)/myri run

check: check-fast check-asan

check-fast: $(BUILD)/myri
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN)/Makefile: CMakeLists.txt | deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DMYRI_SANITIZE=ON $(CMAKE_FLAGS)

check-asan: deps $(ASAN)/Makefile
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 MYRI_SLOW_TESTS=0 \
	  ctest --output-on-failure -j $(JOBS) -LE slow

# The fabric tests with every access to a channel's sender or receiver half
# checked against the node whose handler runs (docs/PARTITION.md step 3).
OWNER ?= build-owner
$(OWNER)/Makefile: CMakeLists.txt | deps
	cmake -S . -B $(OWNER) -DCMAKE_BUILD_TYPE=Release -DMYRI_FAB_CHECK_OWNER=ON $(CMAKE_FLAGS)

check-owner: deps $(OWNER)/Makefile
	cmake --build $(OWNER) -j $(JOBS)
	cd $(OWNER) && ctest --output-on-failure -j $(JOBS) -R 'fabric|golden|port|pcap|system|lanai|via|host|proc'

bench: $(BUILD)/myri
	sh scripts/bench.sh $(BUILD)

install: $(BUILD)/myri
	cmake --install $(BUILD) --prefix $(PREFIX)

fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DMYRI_FUZZ=ON -DMYRI_WERROR=OFF
	cmake --build build-fuzz -j $(JOBS)

# Every fuzz target for FUZZ_SECONDS each (tests/fuzz/fuzz_long.sh); only the
# fuzz targets are built.
fuzz-long: deps
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DMYRI_FUZZ=ON -DMYRI_WERROR=OFF
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	sh tests/fuzz/fuzz_long.sh build-fuzz tests/fuzz/corpus $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN) build-fuzz

FORCE:
