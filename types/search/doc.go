// Package search is Kvrocks's search (FT.*, the `search` column family)
// without the storage engine: the keys and values of the column family
// (FORMAT.md §4.12, KVROCKS-TYPES.md §4), FT.CREATE's schema, the two
// query languages (RediSearch's DIALECT 2 syntax and FT.SEARCHSQL's SQL)
// parsed into one condition tree, the checks and the planner that turn a
// query into a plan of index scans, the plans printed as FT.EXPLAIN and
// FT.EXPLAINSQL print them, the running of a plan over an Index the
// engine provides, the documents' index records, and Kvrocks's HNSW
// graph over a Graph the engine provides.
//
// Kvrocks 5fccd57 is the reference: replies, error texts and plans are
// byte for byte its own (testdata/explain_5fccd57.txt holds its
// answers), except where its answer is wrong (a plan that loses a
// condition, a crash), which the tests list.
//
// The package imports nothing of Basalt's: the engine backs Index and
// Graph with the search column family and the documents' keys, and the
// command handlers render the results.
package search
