package rdb

import (
	"bytes"
	"encoding/binary"
)

// streamListpackMax is Redis's STREAM_LISTPACK_MAX_SIZE: no node grows
// past it, whatever stream-node-max-bytes says.
const streamListpackMax = 1 << 30

// appendStream appends a stream as Redis 7.0 writes it (type 19), its
// entries packed in nodes as XADD packs them (see streamNodes).
func appendStream(dst []byte, entries []StreamEntry, s *StreamInfo, lim Limits) []byte {
	nodes := streamNodes(entries, lim)
	dst = appendLen(append(dst, typeStreamListpacks2), uint64(len(nodes)))
	for _, n := range nodes {
		dst = appendString(dst, appendRawStreamID(nil, n.master))
		dst = appendString(dst, n.finish())
	}
	dst = appendLen(dst, uint64(len(entries)))
	for _, id := range [...]StreamID{s.LastID, s.FirstID, s.MaxDeletedID} {
		dst = appendLen(appendLen(dst, id.Ms), id.Seq)
	}
	dst = appendLen(dst, s.EntriesAdded)
	dst = appendLen(dst, uint64(len(s.Groups)))
	for i := range s.Groups {
		dst = appendStreamGroup(dst, &s.Groups[i])
	}
	return dst
}

// appendStreamGroup appends a consumer group: its name, last ID, entries
// read (-1 as 2^64-1), its PEL with delivery times and counts, then each
// consumer with its seen time and the IDs of its own pending entries.
// The group's pending entries are in ID order, its consumers in name
// order, as Redis's radix trees hold them.
func appendStreamGroup(dst []byte, g *StreamGroup) []byte {
	dst = appendString(dst, g.Name)
	dst = appendLen(appendLen(dst, g.LastID.Ms), g.LastID.Seq)
	dst = appendLen(dst, uint64(g.EntriesRead))
	dst = appendLen(dst, uint64(len(g.Pending)))
	owned := make(map[string][]StreamID, len(g.Consumers))
	for _, p := range g.Pending {
		dst = appendRawStreamID(dst, p.ID)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(p.DeliveryTime))
		dst = appendLen(dst, p.DeliveryCount)
		owned[string(p.Consumer)] = append(owned[string(p.Consumer)], p.ID)
	}
	dst = appendLen(dst, uint64(len(g.Consumers)))
	for _, c := range g.Consumers {
		ids := owned[string(c.Name)]
		dst = appendString(dst, c.Name)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(c.SeenTime))
		dst = appendLen(dst, uint64(len(ids)))
		for _, id := range ids {
			dst = appendRawStreamID(dst, id)
		}
	}
	return dst
}

// appendRawStreamID appends an ID as Redis's radix trees key it: ms and
// seq big-endian.
func appendRawStreamID(dst []byte, id StreamID) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(dst, id.Ms), id.Seq)
}

// streamNode is a node being filled: its master ID and fields, its count
// of entries, and its listpack but for that count, which comes first and
// changes with every entry.
type streamNode struct {
	master  StreamID
	fields  [][]byte
	entries int64
	rest    *listpack
}

// streamNodes packs entries into nodes as Redis 7.0's XADD does
// (streamAppendItem): an entry opens a new node when the last one's
// listpack and the entry's fields and values would reach
// stream-node-max-bytes, or the node holds stream-node-max-entries.
func streamNodes(entries []StreamEntry, lim Limits) []*streamNode {
	maxBytes := lim.StreamNodeMaxBytes
	if maxBytes <= 0 || maxBytes > streamListpackMax {
		maxBytes = streamListpackMax
	}
	var nodes []*streamNode
	for _, e := range entries {
		var n *streamNode
		if len(nodes) > 0 {
			n = nodes[len(nodes)-1]
			size := 0
			for _, f := range e.Fields {
				size += len(f)
			}
			if int64(n.size()+size) >= maxBytes || (lim.StreamNodeMaxEntries > 0 && n.entries >= lim.StreamNodeMaxEntries) {
				n = nil
			}
		}
		if n == nil {
			n = newStreamNode(e)
			nodes = append(nodes, n)
		}
		n.add(e)
	}
	return nodes
}

// newStreamNode starts a node with e's ID and fields as its master entry:
// the deleted count (0), the fields' count, the fields and a 0.
func newStreamNode(e StreamEntry) *streamNode {
	n := &streamNode{master: e.ID, rest: newListpack()}
	for i := 0; i < len(e.Fields); i += 2 {
		n.fields = append(n.fields, e.Fields[i])
	}
	n.rest.addInt(0)
	n.rest.addInt(int64(len(n.fields)))
	for _, f := range n.fields {
		n.rest.add(f)
	}
	n.rest.addInt(0)
	return n
}

// size is the bytes of the node's listpack (lpBytes).
func (n *streamNode) size() int {
	return n.rest.size() + len(appendLpInt(nil, n.entries)) + 1
}

// add appends an entry: its flags, its ID relative to the master ID, its
// fields' count and fields unless they are the master's, its values, and
// how many elements it took.
func (n *streamNode) add(e StreamEntry) {
	same := len(e.Fields) == 2*len(n.fields)
	for i := 0; same && i < len(n.fields); i++ {
		same = bytes.Equal(e.Fields[2*i], n.fields[i])
	}
	flags, elems := int64(0), int64(3+len(e.Fields)/2)
	if same {
		flags = streamItemSameFields
	} else {
		elems += 1 + int64(len(e.Fields)/2)
	}
	lp := n.rest
	lp.addInt(flags)
	lp.addInt(int64(e.ID.Ms - n.master.Ms))
	lp.addInt(int64(e.ID.Seq - n.master.Seq))
	if !same {
		lp.addInt(int64(len(e.Fields) / 2))
	}
	for i := 0; i+1 < len(e.Fields); i += 2 {
		if !same {
			lp.add(e.Fields[i])
		}
		lp.add(e.Fields[i+1])
	}
	lp.addInt(elems)
	n.entries++
}

// finish returns the node's listpack.
func (n *streamNode) finish() []byte {
	lp := newListpack()
	lp.addInt(n.entries)
	lp.buf = append(lp.buf, n.rest.buf[lpHeaderSize:]...)
	lp.count += n.rest.count
	return lp.finish()
}
