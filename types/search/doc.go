// Package search is Kvrocks's search (FT.*, the `search` column family):
// the keys and values of the column family (FORMAT.md §4.12,
// KVROCKS-TYPES.md §4), FT.CREATE's schema, the two query languages
// (RediSearch's DIALECT 2 syntax and FT.SEARCHSQL's SQL) parsed into one
// condition tree, the checks and the planner that turn a query into a
// plan of index scans (the Op types), the plans printed as FT.EXPLAIN and
// FT.EXPLAINSQL print them, and Kvrocks's HNSW algorithm over a Graph;
// then, over the engine (storage): the indexes of a database
// (indexes.go), FT.CREATE with its backfill and FT.DROPINDEX (admin.go),
// queries run over the records (exec.go), and the index records kept in
// step with the documents (maintain.go).
//
// Maintenance: the package registers the storage's Indexer, which sees
// every command's batch before it applies; for each key the batch writes
// that an index keeps (the one with the longest prefix of it, as in
// Kvrocks), it reads the document before and after the batch, and adds
// the records that differ (tags, numbers, the HNSW graph) to the same
// batch. Writes of a graph hold a lock until their batch is applied.
//
// Kinds of documents: an index reads its documents through the extractor
// of its kind (document.go, extractors): a hash's fields by name, or the
// values at the JSON paths of the schema in a JSON document (jsondoc.go),
// in maintenance and in queries alike.
//
// Kvrocks 5fccd57 is the reference: replies, error texts and plans are
// byte for byte its own (testdata/explain_5fccd57.txt holds its
// answers), except where its answer is wrong (a plan that loses a
// condition, a crash), which the tests list, and where Basalt searches
// better (KNN's beam, knnBeam).
package search
