// Package json is Kvrocks's JSON type (type 10) without the storage
// engine: the document model, the JSON text and CBOR encodings of a stored
// value, JSONPath and RedisJSON's legacy paths, and every JSON.* command's
// semantics as functions over a decoded document that return the reply
// as a reply.Value.
//
// Kvrocks 5fccd57 builds on jsoncons, and Basalt answers byte for byte as
// it does: objects keep their members sorted by key (jsoncons's sorted
// policy), numbers print as jsoncons prints them, JSON text errors carry
// jsoncons's messages with their line and column, and JSONPath selects
// the nodes jsoncons selects in the order it selects them. Where Kvrocks
// refuses what RedisJSON accepts (paths that do not start with `$`, SET's
// NX and XX), Basalt answers as RedisJSON does.
//
// db.go runs the commands on the engine (storage.DB): Read and Update
// decode a key's value, run a command function on the document, and
// write back what it returns, each write through put; MGet and MSet do
// it for several keys. The handlers in commands/json.go call them.
package json
