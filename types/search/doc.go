// Package search is Kvrocks's search (FT.*, the `search` column family)
// without the storage engine: the keys and values of the column family
// (FORMAT.md §4.12, KVROCKS-TYPES.md §4), FT.CREATE's schema, the two
// query languages (RediSearch's DIALECT 2 syntax and FT.SEARCHSQL's SQL)
// parsed into one condition tree, the checks and the planner that turn a
// query into a plan of index scans (the Op types), the plans printed as
// FT.EXPLAIN and FT.EXPLAINSQL print them, and Kvrocks's HNSW algorithm
// over a Graph the engine provides. Running a plan's scans and filters
// over the engine's records, and deriving a document's index records from
// its hash fields or JSON, are still to be written.
//
// Kvrocks 5fccd57 is the reference: replies, error texts and plans are
// byte for byte its own (testdata/explain_5fccd57.txt holds its
// answers), except where its answer is wrong (a plan that loses a
// condition, a crash), which the tests list.
//
// The package imports nothing of Basalt's: the engine backs Graph with
// the search column family, and the command handlers render the results.
package search
