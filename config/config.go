package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/glob"
)

// Errors of CONFIG SET; compare with errors.Is. Both read "Unsupported
// CONFIG parameter" in Kvrocks's reply.
var (
	ErrUnknownOption = errors.New("config: unknown option")
	ErrReadOnly      = errors.New("config: option cannot be changed while running")
	ErrNoFile        = errors.New("config: the server is running without a config file")
)

// SetError is a refused CONFIG SET value. Its Error is Kvrocks's text
// after "ERR CONFIG SET '<key>' error: ": "failed to set new value: ..."
// for a value that does not parse or is out of range, "invalid value: ..."
// for one a validator refuses, or the text of a refused change.
type SetError struct{ Text string }

func (e *SetError) Error() string { return e.Text }

// errUnknownKey is a key neither Basalt nor Kvrocks knows: a warning in
// a file, an error on the command line.
var errUnknownKey = errors.New("unknown config key")

// Config holds every setting. The exported fields are safe to read at any
// time; only Set, Load and the namespace methods change them.
type Config struct {
	Bind        Text
	Port        Int
	Dir         Text
	Pidfile     Text
	Workers     Int
	Timeout     Int
	MaxClients  Int
	RequirePass Text
	MasterAuth  Text
	// SlaveOf is "<host> <port>" on a replica, "no one" on a node that
	// stopped replicating, "" otherwise; SetSlaveOf changes it.
	SlaveOf                    Text
	SlaveReadOnly              Bool
	SlaveServeStaleData        Bool
	SlavePriority              Int
	SlaveEmptyDBBeforeFullsync Bool
	UseRSIDPSync               Bool
	MasterUseReplPort          Bool
	ReplicaAnnounceIP          Text
	ReplicaAnnouncePort        Int
	MaxReplicationMB           Int
	FullsyncRecvFileDelay      Int
	MetricsPort                Int
	MetricsPprofEnabled        Bool
	MigrateType                Enum
	MigrateSpeed               Int
	MigratePipelineSize        Int
	MigrateSequenceGap         Int
	MigrateBatchSizeKB         Int
	MigrateBatchRateLimitMB    Int
	RedisDatabases             Int
	ClusterEnabled             Bool
	PersistClusterNodes        Bool
	LogDir                     Text
	LogLevel                   Enum
	DBName                     Text
	ProtoMaxBulkLen            UnitInt
	SlowlogLogSlowerThan       Int
	SlowlogMaxLen              Int
	RESP3Enabled               Bool
	ReplNamespaceEnabled       Bool
	// MaxDBSize is in GB; 0 means no limit.
	MaxDBSize Int
	// MetadataCacheSize is the MB of hot metadata records Basalt keeps in
	// memory in front of RocksDB; 0 disables the cache.
	MetadataCacheSize Int
	// MaxBitmapToStringMB bounds the bitmap GET renders as a string.
	MaxBitmapToStringMB Int
	// JSONMaxNestingDepth bounds the nesting of the JSON documents
	// written; JSONStorageFormat (json or cbor) is how they are encoded.
	JSONMaxNestingDepth Int
	JSONStorageFormat   Enum
	UnixSocket          Text
	UnixSocketPerm      Int
	LogRetentionDays    Int
	// RenameCommand holds the rename-command lines, "OLD NEW" each (NEW
	// `""` disables OLD).
	RenameCommand MultiText

	CompactCron                   Cron
	CompactionCheckerCron         Cron
	compactionCheckerRange        hourRange
	ForceCompactFileAge           Int
	ForceCompactFileMinDeletedPct Int

	DBSizeScanCron Cron
	// Backups (BGSAVE): where, how many (0 or 1) and for how long (hours,
	// 0: for ever) they are kept, and when they are made.
	BackupDir             Text
	MaxBackupToKeep       Int
	MaxBackupKeepHours    Int
	BgsaveCron            Cron
	PurgeBackupOnFullsync Bool
	// PERFLOG: the percentage of calls profiled, the entries kept, the
	// slowest calls kept (ms) and the commands profiled.
	ProfilingSampleRatio     Int
	ProfilingSampleMaxLen    Int
	ProfilingSampleThreshold Int
	ProfilingSampleCommands  Text

	RocksDB      RocksDB
	ClientLimits ClientLimits
	Redis        RedisKeys

	options []*option
	byName  map[string]*option

	mu struct {
		sync.Mutex
		path       string
		lines      []string          // the file as read, for REWRITE
		namespaces map[string]string // namespace name -> token
		watchers   map[string][]func()
		hooks      map[string][]*hook
	}
	// setMu lets one Set run at a time.
	setMu sync.Mutex
	// Warnings lists, for the start-up output, the keys nobody knows and
	// the settings that were given a value Basalt does not act on yet.
	Warnings []string
}

// RocksDB holds the rocksdb.* settings Basalt uses.
type RocksDB struct {
	BlockCacheSize                   Int
	SubkeyBlockCacheSize             Int
	MetadataBlockCacheSize           Int
	RowCacheSize                     Int
	WriteBufferSize                  Int
	MaxWriteBufferNumber             Int
	DBWriteBufferSize                Int
	TargetFileSizeBase               Int
	MaxOpenFiles                     Int
	MaxBackgroundJobs                Int
	MaxBackgroundCompactions         Int
	MaxBackgroundFlushes             Int
	MaxSubcompactions                Int
	DelayedWriteRate                 Int
	CompactionReadaheadSize          Int
	Compression                      Enum
	CompressionLevel                 Int
	CompressionStartLevel            Int
	WALCompression                   Enum
	BlockSize                        Int
	CacheIndexAndFilter              Bool
	Level0CompactionTrigger          Int
	Level0SlowdownTrigger            Int
	Level0StopTrigger                Int
	MaxTotalWALSize                  Int
	WALTTLSeconds                    Int
	WALSizeLimitMB                   Int
	DisableAutoCompactions           Bool
	EnablePipelinedWrite             Bool
	StatsDumpPeriodSec               Int
	EnableBlobFiles                  Bool
	MinBlobSize                      Int
	BlobFileSize                     Int
	EnableBlobGC                     Bool
	BlobGCAgeCutoff                  Int
	LevelCompactionDynamicLevelBytes Bool
	MaxBytesForLevelBase             Int
	MaxBytesForLevelMultiplier       Int
	AvoidUnnecessaryBlockingIO       Bool
	WriteSync                        Bool
	DisableWAL                       Bool
	WriteBatchMaxBytes               Int
}

// option is one row of the table that drives parsing, CONFIG, --help and
// the documentation check.
type option struct {
	name  string
	value value
	def   string
	flags optionFlag
	help  string
	// validate checks a new value before it is stored (Kvrocks's
	// validators: "invalid value: ..."); onSet runs after CONFIG SET stored
	// it, and a failure restores the old value (Kvrocks's callbacks).
	validate func(v string) error
	onSet    func() error
	explicit bool   // set by the file or the command line
	derived  string // the default derived from dir, when there is one
	// aliasOf is the option this one is another name of (Redis's old
	// names): both share one value.
	aliasOf *option
}

// canonical returns the option an alias stands for, or o.
func (o *option) canonical() *option {
	if o.aliasOf != nil {
		return o.aliasOf
	}
	return o
}

// New returns a Config holding the built-in defaults.
func New() *Config {
	c := &Config{byName: map[string]*option{}}
	c.mu.namespaces = map[string]string{}
	c.mu.watchers = map[string][]func(){}
	c.mu.hooks = map[string][]*hook{}
	c.addOptions()
	for _, o := range c.options {
		if o.aliasOf != nil {
			continue
		}
		if err := o.value.set(o.def); err != nil {
			panic(fmt.Sprintf("config: bad default for %s: %v", o.name, err))
		}
	}
	c.derive()
	return c
}

func (c *Config) add(name string, v value, def string, flags optionFlag, help string) {
	o := &option{name: name, value: v, def: def, flags: flags, help: help}
	c.options = append(c.options, o)
	c.byName[name] = o
}

// alias adds name as another name of option of, as Redis's old names.
func (c *Config) alias(name, of string) {
	target := c.byName[of]
	o := &option{name: name, value: target.value, def: target.def, flags: target.flags | redis, help: "Redis's other name of " + of, aliasOf: target}
	c.options = append(c.options, o)
	c.byName[name] = o
}

// derive fills the settings whose default depends on dir, as Kvrocks does
// at the end of loading: pidfile and backup-dir unless they were set, and
// log-dir when it is empty.
func (c *Config) derive() {
	dir := strings.TrimSuffix(c.Dir.Get(), "/")
	for name, file := range map[string]string{"pidfile": "kvrocks.pid", "backup-dir": "backup"} {
		if o := c.byName[name]; !o.explicit && (o.value.String() == o.def || o.value.String() == o.derived) {
			o.derived = dir + "/" + file
			o.value.set(o.derived)
		}
	}
	if o := c.byName["log-dir"]; o.value.String() == "" || (!o.explicit && o.value.String() == o.derived) {
		o.derived = c.Dir.Get()
		o.value.set(o.derived)
	}
}

// Load reads the config file at path ("" for none, "-" for standard input)
// over the defaults, then applies overrides (from --key value flags) in
// order, then checks the combination. Unknown keys, in the file or among
// the overrides, are warnings (Warnings), as in Kvrocks; a bad value of a
// known key is an error naming the key, and the line.
func Load(path string, overrides [][2]string) (*Config, error) {
	c := New()
	if path != "" {
		var r io.Reader
		if path == "-" {
			r = os.Stdin
		} else {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("config: %w", err)
			}
			defer f.Close()
			r = f
		}
		if err := c.read(r, path); err != nil {
			return nil, err
		}
		if path != "-" {
			c.mu.path = path
		}
	}
	for _, kv := range overrides {
		if err := c.apply(kv[0], kv[1]); errors.Is(err, errUnknownKey) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("'--%s' on the command line is not a valid configuration key", strings.ToLower(kv[0])))
		} else if err != nil {
			return nil, fmt.Errorf("config: command line --%s: %w", kv[0], err)
		}
	}
	c.derive()
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) read(r io.Reader, path string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		c.mu.lines = append(c.mu.lines, line)
		key, val, err := parseLine(line)
		if err != nil {
			return fmt.Errorf("config: %s line %d: %w", path, n, err)
		}
		if key == "" || val == "" {
			continue
		}
		if err := c.apply(key, val); errors.Is(err, errUnknownKey) {
			// As Kvrocks: a warning, and the server starts.
			c.Warnings = append(c.Warnings, fmt.Sprintf("'%s' at line %d of %s is not a valid configuration key", strings.ToLower(key), n, path))
		} else if err != nil {
			return fmt.Errorf("config: %s line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config: reading %s: %w", path, err)
	}
	return nil
}

// apply sets one directive from a file or the command line.
func (c *Config) apply(key, val string) error {
	if name, ok := namespaceName(key); ok {
		c.mu.namespaces[name] = val
		return nil
	}
	key = strings.ToLower(key)
	o, ok := c.byName[key]
	if !ok {
		if isKnownKvrocksKey(key) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("config key '%s' is accepted for Kvrocks compatibility but has no effect yet", key))
			return nil
		}
		if redisFileOnlyKeys[key] {
			return nil // Redis 7 reads and ignores these too
		}
		return fmt.Errorf("key '%s': %w", key, errUnknownKey)
	}
	if err := o.value.set(val); err != nil {
		return fmt.Errorf("key '%s': %w", key, err)
	}
	if o.validate != nil {
		if err := o.validate(val); err != nil {
			return fmt.Errorf("key '%s': %w", key, err)
		}
	}
	o.explicit = true
	if o.flags&noEffect != 0 && o.value.String() != o.def {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config key '%s' is accepted for Kvrocks compatibility but has no effect yet", key))
	}
	return nil
}

// namespaceName recognises `namespace.<name>`: the prefix in any case, the
// name kept as written.
func namespaceName(key string) (string, bool) {
	const prefix = "namespace."
	if len(key) > len(prefix) && strings.EqualFold(key[:len(prefix)], prefix) {
		return key[len(prefix):], true
	}
	return "", false
}

// check validates the combination of settings, as Kvrocks does at start.
func (c *Config) check() error {
	if len(c.mu.namespaces) > 0 {
		if c.RequirePass.Get() == "" {
			return errors.New("config: namespace tokens need requirepass to be set")
		}
		if c.ClusterEnabled.Get() {
			return errors.New("config: namespaces are not allowed with cluster-enabled yes")
		}
		for name, token := range c.mu.namespaces {
			if token == c.RequirePass.Get() {
				return fmt.Errorf("config: the token of namespace '%s' equals requirepass", name)
			}
		}
	}
	if c.RedisDatabases.Get() > 0 && (len(c.mu.namespaces) > 0 || c.ClusterEnabled.Get()) {
		return errors.New("config: redis-databases is not allowed with namespaces or with cluster-enabled yes")
	}
	if c.ClusterEnabled.Get() && len(c.BindAddrs()) == 0 {
		return errors.New("config: node is in cluster mode, but TCP listen address wasn't specified via configuration file")
	}
	// Kvrocks checks after every line was read, so the order of the two
	// lines does not matter.
	if r := c.byName["compaction-checker-range"]; r.explicit && r.value.String() != "" && c.CompactionCheckerCron.Get() != "" {
		return errors.New("config: compaction-checker-range is invalid: compaction-checker-range cannot be set while compaction-checker-cron is set")
	}
	if err := checkRenames(c.RenameCommand.Entries()); err != nil {
		return fmt.Errorf("config: rename-command is invalid: %w", err)
	}
	return nil
}

// Path returns the config file the server was started with, or "".
func (c *Config) Path() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.path
}

// BindAddrs returns the TCP addresses to listen on: those of bind, or
// 127.0.0.1 when bind is empty and there is no unixsocket (Kvrocks's
// rule).
func (c *Config) BindAddrs() []string {
	addrs := strings.Fields(c.Bind.Get())
	if len(addrs) == 0 && c.UnixSocket.Get() == "" {
		addrs = []string{"127.0.0.1"}
	}
	return addrs
}

// SetNamespace sets the token of namespace name, in memory; Rewrite writes
// it to the file.
func (c *Config) SetNamespace(name, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.namespaces[name] = token
}

// DeleteNamespace forgets namespace name, in memory.
func (c *Config) DeleteNamespace(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.mu.namespaces, name)
}

// Namespaces returns a copy of the namespace name -> token map.
func (c *Config) Namespaces() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.mu.namespaces))
	for k, v := range c.mu.namespaces {
		out[k] = v
	}
	return out
}

// Get returns the name and value of every option matching the glob pattern
// (case-insensitive), sorted by name. rename-command gives one pair per
// line, as in Kvrocks.
func (c *Config) Get(pattern string) [][2]string {
	var out [][2]string
	for _, o := range c.options {
		if !glob.Match([]byte(pattern), []byte(o.name), true) {
			continue
		}
		if m, ok := o.value.(*MultiText); ok {
			for _, v := range m.Entries() {
				out = append(out, [2]string{o.name, v})
			}
			continue
		}
		out = append(out, [2]string{o.name, o.value.String()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Set changes an option while the server runs, as Kvrocks's CONFIG SET
// does: the validator first, then the value, then the change's own check
// and the hooks that apply it, which restore the old value when they fail;
// then the watchers run. Unknown and read-only keys give ErrUnknownOption
// and ErrReadOnly, bad values a *SetError. One Set runs at a time, as
// Kvrocks runs CONFIG SET alone.
func (c *Config) Set(key, val string) error {
	o, ok := c.byName[strings.ToLower(key)]
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknownOption, key)
	}
	if o.flags&ro != 0 {
		return fmt.Errorf("%w: %s", ErrReadOnly, o.name)
	}
	c.setMu.Lock()
	defer c.setMu.Unlock()
	o = o.canonical()
	if o.validate != nil {
		if err := o.validate(val); err != nil {
			return &SetError{"invalid value: " + err.Error()}
		}
	}
	old := o.value.String()
	if err := o.value.set(val); err != nil {
		return &SetError{"failed to set new value: " + err.Error()}
	}
	var hooks []func() error
	if o.onSet != nil {
		hooks = append(hooks, o.onSet)
	}
	c.mu.Lock()
	for _, h := range c.mu.hooks[o.name] {
		hooks = append(hooks, h.fn)
	}
	watchers := c.mu.watchers[o.name]
	c.mu.Unlock()
	for i, fn := range hooks {
		if err := fn(); err != nil {
			if rollback := o.value.set(old); rollback != nil {
				return &SetError{"failed to rollback the value: " + rollback.Error()}
			}
			// The hooks that took the new value, and the one that failed
			// (it may have applied part of it), take the old one again.
			for _, undo := range hooks[:i+1] {
				undo()
			}
			return &SetError{err.Error()}
		}
	}
	for _, fn := range watchers {
		fn()
	}
	return nil
}

// SetSlaveOf records the node's master ("<host> <port>") or "no one", as
// SLAVEOF does; slaveof is read-only to CONFIG SET.
func (c *Config) SetSlaveOf(v string) { c.SlaveOf.set(v) }

// Watch registers fn to run after every successful Set of the option.
func (c *Config) Watch(name string, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.watchers[name] = append(c.mu.watchers[name], fn)
}

// Hook registers fn to apply a change of the option while the server runs,
// as Kvrocks's callbacks do: Set runs it once the new value is stored, and
// when it fails, restores the old value and replies with its error text.
// The returned function removes the hook.
func (c *Config) Hook(name string, fn func() error) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := &hook{fn}
	c.mu.hooks[name] = append(c.mu.hooks[name], h)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		hooks := c.mu.hooks[name]
		for i, other := range hooks {
			if other == h {
				c.mu.hooks[name] = append(hooks[:i:i], hooks[i+1:]...)
				return
			}
		}
	}
}

// hook is a function Hook registered; its address identifies it.
type hook struct{ fn func() error }

// Option describes a setting for --help and documentation. NoEffect
// settings are accepted and reported but Basalt does not act on them yet.
type Option struct {
	Name, Default, Help string
	ReadOnly, NoEffect  bool
}

// Explicit reports whether setting name was given a value, by the file or
// the command line, rather than left at its default.
func (c *Config) Explicit(name string) bool {
	o := c.byName[name]
	return o != nil && o.explicit
}

// Options lists every setting in table order.
func (c *Config) Options() []Option {
	out := make([]Option, len(c.options))
	for i, o := range c.options {
		out[i] = Option{Name: o.name, Default: o.def, Help: o.help, ReadOnly: o.flags&ro != 0, NoEffect: o.flags&(noEffect|redis) != 0}
	}
	return out
}
