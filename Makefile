# Strata's commands. Every target bootstraps first, so a fresh Debian machine needs nothing else.
BUILD   ?= build
JOBS    ?= 2
SHARED  ?= $(abspath ../shared)
CMAKE_COMMON = -DSTRATA_SHARED=$(SHARED)

.PHONY: all bootstrap test demo size bench torture fuzz fuzz-build fuzz-ci fuzz-corpus target-test clean

all: test

bootstrap:
	@scripts/bootstrap.sh

# Configure every time (cheap when nothing changed): new files merged in are picked up.
ASAN_CONFIG    = cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON $(CMAKE_COMMON)
RELEASE_CONFIG = cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_COMMON)
# The HTML report from the JSON the programs wrote (docs/report.md); Debian's Python for matplotlib.
REPORT = /usr/bin/python3 scripts/report/report.py

test: bootstrap
	$(ASAN_CONFIG)
	cmake --build $(BUILD)/asan -j$(JOBS)
	cd $(BUILD)/asan && ctest --output-on-failure -j$(JOBS) -LE torture

torture: bootstrap
	$(RELEASE_CONFIG)
	cmake --build $(BUILD)/release -j$(JOBS)
	cd $(BUILD)/release && STRATA_TORTURE=1 ctest --output-on-failure -j$(JOBS)

demo: bootstrap
	$(RELEASE_CONFIG)
	cmake --build $(BUILD)/release -j$(JOBS)
	$(BUILD)/release/tools/strata/strata demo --shared $(SHARED) --out $(BUILD)/demo
	$(BUILD)/release/bench/vm/programs/bench_vm_programs --demo --out $(BUILD)/demo
	$(REPORT) $(BUILD)/demo --title "Strata demo"

bench: bootstrap
	$(RELEASE_CONFIG)
	cmake --build $(BUILD)/release -j$(JOBS)
	scripts/run-benchmarks.sh $(BUILD)/release $(BUILD)/bench $(SHARED)
	$(REPORT) $(BUILD)/bench --title "Strata benchmarks"

size: bootstrap
	cmake -S . -B $(BUILD)/m0plus -DSTRATA_HOST=OFF -DCMAKE_BUILD_TYPE=MinSizeRel \
	      -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DSTRATA_CPU=cortex-m0plus
	cmake --build $(BUILD)/m0plus -j$(JOBS)
	cmake -S . -B $(BUILD)/m4 -DSTRATA_HOST=OFF -DCMAKE_BUILD_TYPE=MinSizeRel \
	      -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DSTRATA_CPU=cortex-m4
	cmake --build $(BUILD)/m4 -j$(JOBS)
	cmake -S . -B $(BUILD)/m0plus-reduced -DSTRATA_HOST=OFF -DCMAKE_BUILD_TYPE=MinSizeRel \
	      -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DSTRATA_CPU=cortex-m0plus \
	      -DSTRATA_KV_MINIMAL=ON -DSTRATA_FS_OPTIONS=STRATA_FS_NO_CHECK -DSTRATA_BTREE_OPTIONS=
	cmake --build $(BUILD)/m0plus-reduced -j$(JOBS)
	python3 scripts/size.py --out $(BUILD)/size.json cortex-m0plus=$(BUILD)/m0plus cortex-m4=$(BUILD)/m4 \
	      "cortex-m0plus/reduced (kv minimal, fs without check)=$(BUILD)/m0plus-reduced"

# Every engine's target workload on host -m64/-m32, Cortex-M0 and M4 (QEMU), AVR (simavr), plus
# an msp430 compile check: identical digests required (targets/run.py, docs/targets.md). Then the
# measured stack and instruction counts beside size.py's static bound for the same build.
target-test: bootstrap
	python3 targets/run.py --build $(BUILD) --jobs $(JOBS)
	python3 scripts/size.py --out $(BUILD)/targets/size.json --measured $(BUILD)/targets/report.json \
	      cortex-m0=$(BUILD)/targets/cortex-m0 cortex-m4=$(BUILD)/targets/cortex-m4

# Fuzzing (docs/fuzzing.md): the libFuzzer build (the whole library instrumented, -O1) and a
# coverage build that replays the final corpus for llvm-cov (FUZZ_COVERAGE=0 leaves it out).
FUZZ_COVERAGE ?= 1
fuzz-build: bootstrap
	CC=clang cmake -S . -B $(BUILD)/fuzz -DSTRATA_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
	      -DCMAKE_C_FLAGS=-O1 $(CMAKE_COMMON)
	cmake --build $(BUILD)/fuzz -j$(JOBS)

# CI's deterministic fuzz step: saved findings replayed, then a fixed seed and run count per
# target (scripts/ci-fuzz.sh), one process at a time.
fuzz-ci: fuzz-build
	scripts/ci-fuzz.sh $(BUILD)/fuzz $(FUZZ_TARGETS)

fuzz: fuzz-build
ifeq ($(FUZZ_COVERAGE),1)
	CC=clang cmake -S . -B $(BUILD)/fuzz-cov -DSTRATA_FUZZ_COVERAGE=ON -DCMAKE_BUILD_TYPE=Debug \
	      $(CMAKE_COMMON)
	cmake --build $(BUILD)/fuzz-cov -j$(JOBS)
	scripts/run-fuzzers.sh $(BUILD)/fuzz $(BUILD)/fuzz-cov $${FUZZ_SECONDS:-60} $(FUZZ_TARGETS)
else
	scripts/run-fuzzers.sh $(BUILD)/fuzz - $${FUZZ_SECONDS:-60} $(FUZZ_TARGETS)
endif

# Rewrite the seed corpora (after a format change): fuzz/seeds*.c through the ASan build.
fuzz-corpus: bootstrap
	$(ASAN_CONFIG)
	cmake --build $(BUILD)/asan -j$(JOBS) --target fuzz_seeds
	scripts/fuzz-corpus.sh $(BUILD)/asan

clean:
	rm -rf $(BUILD)
