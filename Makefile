# Basalt: `make run` to start a server, `make test` to check everything.
# Both install the Debian packages they need first (scripts/install-deps.sh).

GO       ?= go
BIN      := bin/basalt
PKGS     := ./...
# Integration tests start several servers. Those that mostly wait (a cron's
# minute, a replica's 10 s retry pause, a rate-limited full sync) call
# t.Parallel and overlap; -parallel lets them all run at once. The timeout
# leaves room for the suites sharing the two cores with other work.
TESTFLAGS ?= -count=1 -timeout 25m -parallel 12

# RocksDB is linked statically into the server: its thread-local perf
# counters, touched several times per read and write, then cost a plain
# memory access instead of a __tls_get_addr call into the shared library
# (10-25% less server CPU per write, measured with redis-benchmark -P 16).
# Debian's librocksdb-dev ships librocksdb.a and pulls in the libraries below.
STATIC_ROCKSDB := -Wl,-Bstatic -lrocksdb -Wl,-Bdynamic -lgflags -lsnappy -lz -lbz2 -llz4 -lzstd -lstdc++ -lm -ldl -pthread
# ROCKSDB_DIR, when given, is a release build of the same RocksDB to link
# instead (Debian's keeps its assertions): scripts/build-rocksdb.sh makes
# one, and `make rocksdb-release` builds the server with it.
ifneq ($(ROCKSDB_DIR),)
STATIC_ROCKSDB := -L$(ROCKSDB_DIR) $(STATIC_ROCKSDB)
export CGO_CFLAGS := -I$(ROCKSDB_DIR)/include $(CGO_CFLAGS)
export CGO_CXXFLAGS := -I$(ROCKSDB_DIR)/include $(CGO_CXXFLAGS)
endif
ROCKSDB_CACHE ?= $(HOME)/.cache/basalt/rocksdb-release

.PHONY: all deps build run test fuzz lint bench clean rocksdb-release

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	CGO_LDFLAGS="$(STATIC_ROCKSDB)" $(GO) build -o $(BIN) ./cmd/basalt

# The server linked with a release build of RocksDB, built once into
# ROCKSDB_CACHE (25-45 minutes): `make bench ROCKSDB_DIR=...` compares it
# with Kvrocks, whose RocksDB is a release build too.
rocksdb-release: deps
	$(MAKE) --no-print-directory build ROCKSDB_DIR="$$(./scripts/build-rocksdb.sh $(ROCKSDB_CACHE))"

run: build
	./$(BIN) --dir ./data

# The integration tests (./it) run twice, the second time against a server
# built with -race; so do the storage caches' tests, which readers and
# writers share without the key locks. Each run is two processes at once,
# split by test name (IT_SHARDS): the servers the tests start mostly wait,
# on each other and on timeouts, rather than on the CPU. The -race run
# leaves out the tests whose server sees one request at a time (RACE_SKIP:
# the differential corpora against redis-server and Kvrocks, interop with
# Kvrocks, volume and bad-input tests, static checks): the first run has
# them, and a data race needs the concurrent tests, which both runs have.
IT_SHARDS := ^Test[A-JL-Q] ^Test[KR-Z]
RACE_SKIP := Kvrocks|Diff$$|^TestDifferential|^TestLint$$|^TestTypePackages$$|^TestDirectImports$$|^TestDocLinks$$|^TestNoCommandPanics$$|^TestScriptMemory$$|^TestCompactReclaimsDiskSpace$$|^TestConfigMaxDBSize$$|^TestHyperLogLogEstimates$$|^TestBadInput$$|^TestRDBLoadBadInput$$|^TestStartupErrors$$|^TestRandomKey$$
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/it$$')
IT_ENV := BASALT_BIN=$(CURDIR)/$(BIN) PROMTOOL=$(CURDIR)/bin/promtool
RACE_ENV := BASALT_RACE=1 BASALT_BIN=$(CURDIR)/$(BIN)-race PROMTOOL=$(CURDIR)/bin/promtool
test: deps build
	@./scripts/install-promtool.sh bin
	./scripts/parallel.sh "$(IT_ENV) $(GO) test $(TESTFLAGS) $(UNIT_PKGS)" \
		$(foreach shard,$(IT_SHARDS),"$(IT_ENV) $(GO) test $(TESTFLAGS) -run '$(shard)' ./it")
	CGO_LDFLAGS="$(STATIC_ROCKSDB)" $(GO) build -race -o $(BIN)-race ./cmd/basalt
	./scripts/parallel.sh "$(GO) test -race $(TESTFLAGS) -run 'MetaCache|RecordsCache' ./storage" \
		$(foreach shard,$(IT_SHARDS),"$(RACE_ENV) $(GO) test $(TESTFLAGS) -run '$(shard)' -skip '$(RACE_SKIP)' ./it")
	@$(MAKE) --no-print-directory fuzz FUZZTIME=5s FUZZMINIMIZE=0

# Every fuzz target of the repository, one after the other, for FUZZTIME
# each; `make test` runs them for 5s. An input that fails is written to
# the package's testdata/fuzz/FuzzXxx/, where every later `go test`
# replays it: commit it with the fix. No overall timeout: FuzzCommandArgs
# bounds each input itself. FUZZMINIMIZE bounds the minimization of each
# new input; make test turns it off (0) to keep its time.
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 10s
fuzz:
	GO="$(GO)" ./scripts/fuzz.sh $(FUZZTIME) $(FUZZMINIMIZE)

lint:
	@test -z "$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go'))" || { gofmt -l $$(git ls-files -co --exclude-standard '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet $(PKGS)
	@if command -v staticcheck >/dev/null 2>&1; then staticcheck $(PKGS); fi

# Kvrocks, the server basalt replaces, gets its own column when its binary
# is there: KVROCKS_BIN, or ../shared/kvrocks/kvrocks beside the project.
bench: build
	$(GO) run ./bench -basalt $(CURDIR)/$(BIN) -kvrocks "$(or $(KVROCKS_BIN),$(abspath $(CURDIR)/../shared/kvrocks/kvrocks))"

clean:
	rm -rf bin
