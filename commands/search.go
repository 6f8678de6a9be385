package commands

import (
	"errors"
	"log/slog"
	"sort"
	"strconv"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/types/search"
)

// The search commands (FT.*), Kvrocks's secondary indexes over hashes
// (types/search): the index definitions and records live in the search
// column family as Kvrocks keeps them, and every write of a document
// keeps its index records in step in the same batch (types/search's
// Indexer). Indexes belong to the connection's namespace.

func init() {
	const kvrocks = executor.KvrocksOnly
	executor.Register(
		// FT.CREATE and FT.DROPINDEX take the write door themselves:
		// FT.CREATE indexes the existing documents a few at a time.
		&executor.Command{Name: "ft.create", Arity: -2, Flags: executor.Write | executor.LocksItself | executor.NoMulti | kvrocks, Handler: cmdFTCreate,
			Meta: &executor.Meta{Doc: doc("summary", "Creates an index over hashes or JSON documents with the given key prefixes and schema",
				"group", "search", "complexity", "O(N) over the documents indexed")}},
		&executor.Command{Name: "ft.dropindex", Arity: 2, Flags: executor.Write | executor.LocksItself | executor.NoMulti | kvrocks, Handler: cmdFTDropIndex,
			Meta: &executor.Meta{Doc: doc("summary", "Deletes an index, keeping its documents", "group", "search", "complexity", "O(1)")}},
		&executor.Command{Name: "ft.info", Arity: 2, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTInfo,
			Meta: &executor.Meta{Doc: doc("summary", "Describes an index", "group", "search", "complexity", "O(1)")}},
		&executor.Command{Name: "ft._list", Arity: 1, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTList,
			Meta: &executor.Meta{Doc: doc("summary", "Lists the indexes of the namespace", "group", "search", "complexity", "O(N)")}},
		&executor.Command{Name: "ft.tagvals", Arity: 3, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTTagVals,
			Meta: &executor.Meta{Doc: doc("summary", "Lists the distinct tags of a tag field", "group", "search", "complexity", "O(N)")}},
		&executor.Command{Name: "ft.search", Arity: -3, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTSearch,
			Meta: &executor.Meta{Doc: doc("summary", "Queries an index in RediSearch's query language", "group", "search", "complexity", "O(N)")}},
		&executor.Command{Name: "ft.searchsql", Arity: -2, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTSearchSQL,
			Meta: &executor.Meta{Doc: doc("summary", "Queries an index in SQL", "group", "search", "complexity", "O(N)")}},
		&executor.Command{Name: "ft.explain", Arity: -3, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTExplain,
			Meta: &executor.Meta{Doc: doc("summary", "Prints the plan of a query", "group", "search", "complexity", "O(1)")}},
		&executor.Command{Name: "ft.explainsql", Arity: -2, Flags: executor.ReadOnly | kvrocks, Handler: cmdFTExplainSQL,
			Meta: &executor.Meta{Doc: doc("summary", "Prints the plan of an SQL query", "group", "search", "complexity", "O(1)")}},
	)
}

// searchOK replies the error of a search command, in Kvrocks's words for
// the package's own.
func searchOK(c *executor.Ctx, err error) bool {
	if err == nil {
		return true
	}
	if text, ok := search.ReplyText(err); ok {
		c.ErrorString(text)
		return false
	}
	return c.OK(err)
}

// FT.CREATE index [ON HASH|JSON] [PREFIX n prefix ...] SCHEMA field type [options] ...
func cmdFTCreate(c *executor.Ctx) {
	schema, err := search.ParseCreate(c.Args[1:])
	if !searchOK(c, err) {
		return
	}
	ns := c.DB.Namespace()
	ix, err := search.Create(c.Env.Storage, ns, schema)
	if !searchOK(c, err) {
		return
	}
	if err := search.Backfill(c.Env.Storage, ns, ix); err != nil {
		// The index exists: its documents are indexed as they change.
		slog.Error("search: backfill failed", "index", schema.Name, "err", err)
		c.OK(err)
		return
	}
	c.W.OK()
}

// FT.DROPINDEX index
func cmdFTDropIndex(c *executor.Ctx) {
	if searchOK(c, search.Drop(c.Env.Storage, c.DB.Namespace(), string(c.Args[1]))) {
		c.W.OK()
	}
}

// FT._LIST
func cmdFTList(c *executor.Ctx) {
	names, err := search.List(c.DB)
	if searchOK(c, err) {
		c.W.BulkStrings(names)
	}
}

// FT.INFO index
func cmdFTInfo(c *executor.Ctx) {
	ix, err := search.Find(c.DB, string(c.Args[1]))
	if !searchOK(c, err) {
		return
	}
	s := ix.Schema
	examined, total, running := ix.Backfill.Snapshot()
	n := 6
	if running {
		n += 4
	}
	c.W.Array(n)
	c.W.Simple("index_name")
	c.W.BulkString(s.Name)
	c.W.Simple("index_definition")
	c.W.Array(4)
	c.W.Simple("key_type")
	c.W.BulkString(s.On.KeyType())
	c.W.Simple("prefixes")
	c.W.BulkStrings(s.Prefixes)
	c.W.Simple("fields")
	fields := make([]*search.Field, len(s.Fields))
	for i := range s.Fields {
		fields[i] = &s.Fields[i]
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	c.W.Array(len(fields))
	for _, f := range fields {
		writeFieldInfo(c, f)
	}
	// Beyond Kvrocks, which builds an index before FT.CREATE replies:
	// while FT.CREATE indexes the existing documents, RediSearch's
	// progress fields.
	if running {
		c.W.Simple("indexing")
		c.W.Int(1)
		c.W.Simple("percent_indexed")
		pct := 1.0
		if total > 0 {
			pct = float64(examined) / float64(total)
		}
		c.W.BulkString(strconv.FormatFloat(pct, 'f', -1, 64))
	}
}

// writeFieldInfo writes one field of FT.INFO's fields.
func writeFieldInfo(c *executor.Ctx, f *search.Field) {
	c.W.Array(6)
	c.W.Simple("identifier")
	c.W.BulkString(f.QueryName())
	c.W.Simple("type")
	c.W.BulkString(f.Type.String())
	c.W.Simple("options")
	if f.Type != search.FieldTag {
		c.W.Array(0)
		return
	}
	c.W.Array(4)
	c.W.Simple("separator")
	c.W.BulkString(string([]byte{f.Separator}))
	c.W.Simple("case_sensitive")
	c.W.Bool(f.CaseSensitive)
}

// FT.TAGVALS index field
func cmdFTTagVals(c *executor.Ctx) {
	ix, err := search.Find(c.DB, string(c.Args[1]))
	if errors.Is(err, search.ErrNoIndex) {
		c.ErrorString("ERR Index '" + string(c.Args[1]) + "' not found in namespace '" + c.DB.Namespace() + "'")
		return
	}
	if !searchOK(c, err) {
		return
	}
	tags, err := search.TagValues(c.DB, ix, string(c.Args[2]))
	if !searchOK(c, err) {
		return
	}
	c.W.Set(len(tags))
	for _, t := range tags {
		c.W.BulkString(t)
	}
}

// FT.SEARCH index query [RETURNS n field ...] [SORTBY field [ASC|DESC]] [LIMIT offset count] [PARAMS n name value ...]
func cmdFTSearch(c *executor.Ctx) {
	q, err := search.ParseSearch(c.Args[1:])
	if searchOK(c, err) {
		runSearch(c, q)
	}
}

// FT.SEARCHSQL sql [PARAMS n name value ...]
func cmdFTSearchSQL(c *executor.Ctx) {
	q, _, err := search.ParseSQLArgs(c.Args[1:], false)
	if searchOK(c, err) {
		runSearch(c, q)
	}
}

// checked finds a query's index and checks the query against it.
func checked(c *executor.Ctx, q *search.Query) (*search.Index, bool) {
	ix, err := search.Find(c.DB, q.Index)
	if errors.Is(err, search.ErrNoIndex) {
		err = search.NoIndexError(q.Index)
	}
	if !searchOK(c, err) || !searchOK(c, search.Check(q, ix.Schema)) {
		return nil, false
	}
	return ix, true
}

// runSearch runs a parsed query and replies its documents: their count,
// then each key and its fields.
func runSearch(c *executor.Ctx, q *search.Query) {
	ix, ok := checked(c, q)
	if !ok {
		return
	}
	docs, err := search.Search(c.DB, ix, q)
	if !searchOK(c, err) {
		return
	}
	n := 1 + len(docs)
	if !q.NoContent {
		n += len(docs)
	}
	c.W.Array(n)
	c.W.Int(int64(len(docs)))
	for _, d := range docs {
		c.W.Bulk(d.Key)
		if q.NoContent {
			continue
		}
		c.W.Array(2 * len(d.Fields))
		for _, f := range d.Fields {
			c.W.BulkString(f.Name)
			c.W.Bulk(f.Value)
		}
	}
}

// FT.EXPLAIN index query [options]
func cmdFTExplain(c *executor.Ctx) {
	q, err := search.ParseSearch(c.Args[1:])
	if searchOK(c, err) {
		explain(c, q, search.Simple)
	}
}

// FT.EXPLAINSQL sql [PARAMS n name value ...] [SIMPLE|DOT]
func cmdFTExplainSQL(c *executor.Ctx) {
	q, format, err := search.ParseSQLArgs(c.Args[1:], true)
	if searchOK(c, err) {
		explain(c, q, format)
	}
}

// explain replies a query's plan.
func explain(c *executor.Ctx, q *search.Query, format search.ExplainFormat) {
	ix, ok := checked(c, q)
	if !ok {
		return
	}
	plan := search.Optimize(q, ix.Schema)
	if format == search.DOT {
		c.W.BulkString(plan.DOT())
		return
	}
	c.W.BulkString(plan.Dump())
}
