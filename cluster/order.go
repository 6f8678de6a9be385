package cluster

import "encoding/binary"

// Kvrocks keeps the nodes of a topology in a std::unordered_map keyed by
// node id, and lists them in that map's iteration order wherever it lists
// nodes: CLUSTER NODES, a master's replicas (CLUSTER SLOTS, CLUSTER
// REPLICAS), nodes.conf, and its search for itself by address. The order
// is a function of the ids and of the order they were inserted in (the
// lines of SETNODES or of nodes.conf), fixed by the C++ library Kvrocks is
// built with, GCC's libstdc++. kvrocksOrder computes it, so that Basalt
// lists nodes, and writes nodes.conf, byte for byte as Kvrocks does.

// kvrocksOrder returns the positions in ids of the distinct ids, in the
// iteration order of a libstdc++ std::unordered_map<std::string, T> they
// were inserted into in order (a repeated id is not inserted again).
func kvrocksOrder(ids []string) []int {
	m := newHashMap(len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if !seen[id] {
			seen[id] = true
			m.insert(i, hashBytes([]byte(id)))
		}
	}
	out := make([]int, 0, len(seen))
	for n := m.first; n >= 0; n = m.nodes[n].next {
		out = append(out, m.nodes[n].item)
	}
	return out
}

// hashMap models libstdc++'s _Hashtable for unique keys with cached hash
// codes: one singly-linked list of every node, the nodes of a bucket
// contiguous in it, and per bucket the node before the bucket's first
// one.
type hashMap struct {
	nodes []hashNode
	first int // the head of the list, -1 when empty
	// before[b] is the node before bucket b's first node: beforeBegin
	// when it is the head of the list, empty when the bucket is.
	before     []int
	nextResize uint64
}

const (
	empty       = -2
	beforeBegin = -1
)

type hashNode struct {
	item int // the caller's position of the key
	code uint64
	next int // -1 at the end
}

func newHashMap(n int) *hashMap {
	// A default-constructed map has one bucket and has allocated nothing.
	return &hashMap{nodes: make([]hashNode, 0, n), first: -1, before: []int{empty}}
}

func (m *hashMap) bucket(code uint64) int { return int(code % uint64(len(m.before))) }

// insert is _M_insert_unique_node: after growing the buckets if needed,
// the node goes first in its bucket (_M_insert_bucket_begin).
func (m *hashMap) insert(item int, code uint64) {
	if grow, buckets := m.needRehash(uint64(len(m.before)), uint64(len(m.nodes)), 1); grow {
		m.rehash(int(buckets))
	}
	m.nodes = append(m.nodes, hashNode{item: item, code: code})
	m.link(len(m.nodes) - 1)
}

// link puts node n first in its bucket, or, when its bucket is empty,
// first in the list; the same step inserts and rehashes.
func (m *hashMap) link(n int) {
	b := m.bucket(m.nodes[n].code)
	if prev := m.before[b]; prev != empty {
		if prev == beforeBegin {
			m.nodes[n].next, m.first = m.first, n
		} else {
			m.nodes[n].next, m.nodes[prev].next = m.nodes[prev].next, n
		}
		return
	}
	m.nodes[n].next, m.first = m.first, n
	if next := m.nodes[n].next; next >= 0 {
		// The bucket that began the list now begins after n.
		m.before[m.bucket(m.nodes[next].code)] = n
	}
	m.before[b] = beforeBegin
}

// rehash is _M_rehash_aux for unique keys: the nodes are taken in list
// order and linked again into the new buckets.
func (m *hashMap) rehash(buckets int) {
	m.before = make([]int, buckets)
	for i := range m.before {
		m.before[i] = empty
	}
	n := m.first
	m.first = -1
	for n >= 0 {
		next := m.nodes[n].next
		m.link(n)
		n = next
	}
}

// needRehash is _Prime_rehash_policy::_M_need_rehash, with the maximum
// load factor 1.
func (m *hashMap) needRehash(buckets, elements, inserted uint64) (bool, uint64) {
	if elements+inserted <= m.nextResize {
		return false, 0
	}
	minBuckets := elements + inserted
	if m.nextResize == 0 {
		// The first insertion into a map that has allocated nothing.
		minBuckets = max(minBuckets, 11)
	}
	if minBuckets >= buckets {
		return true, m.nextBucket(max(minBuckets+1, buckets*2))
	}
	m.nextResize = buckets
	return false, 0
}

// nextBucket is _Prime_rehash_policy::_M_next_bkt: the bucket count for at
// least n buckets.
func (m *hashMap) nextBucket(n uint64) uint64 {
	fast := [...]uint64{2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13}
	if n < uint64(len(fast)) {
		m.nextResize = fast[n]
		return fast[n]
	}
	// The search leaves out the first six primes and the last one.
	lo, hi := 6, len(primeList)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if primeList[mid] < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	p := primeList[lo]
	if lo == len(primeList)-1 {
		m.nextResize = ^uint64(0)
	} else {
		m.nextResize = p
	}
	return p
}

// primeList is libstdc++'s __prime_list for 64-bit targets, without its
// sentinel.
var primeList = [...]uint64{
	2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
	73, 79, 83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193,
	199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503,
	541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381,
	1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469,
	3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783,
	9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753,
	22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201,
	53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897,
	116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971,
	236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487,
	480881, 520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483,
	976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859,
	1832561, 1982627, 2144977, 2320627, 2510653, 2716249, 2938679, 3179303,
	3439651, 3721303, 4026031, 4355707, 4712381, 5098259, 5515729, 5967347,
	6456007, 6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489,
	12117689, 13109983, 14183539, 15345007, 16601593, 17961079, 19431899,
	21023161, 22744717, 24607243, 26622317, 28802401, 31160981, 33712729,
	36473443, 39460231, 42691603, 46187573, 49969847, 54061849, 58488943,
	63278561, 68460391, 74066549, 80131819, 86693767, 93793069, 101473717,
	109783337, 118773397, 128499677, 139022417, 150406843, 162723577, 176048909,
	190465427, 206062531, 222936881, 241193053, 260944219, 282312799, 305431229,
	330442829, 357502601, 386778277, 418451333, 452718089, 489790921, 529899637,
	573292817, 620239453, 671030513, 725980837, 785430967, 849749479, 919334987,
	994618837, 1076067617, 1164186217, 1259520799, 1362662261, 1474249943,
	1594975441, 1725587117, 1866894511, 2019773507, 2185171673, 2364114217,
	2557710269, 2767159799, 2993761039, 3238918481, 3504151727, 3791104843,
	4101556399, 4294967291, 6442450933, 8589934583, 12884901857, 17179869143,
	25769803693, 34359738337, 51539607367, 68719476731, 103079215087,
	137438953447, 206158430123, 274877906899, 412316860387, 549755813881,
	824633720731, 1099511627689, 1649267441579, 2199023255531, 3298534883309,
	4398046511093, 6597069766607, 8796093022151, 13194139533241, 17592186044399,
	26388279066581, 35184372088777, 52776558133177, 70368744177643,
	105553116266399, 140737488355213, 211106232532861, 281474976710597,
	562949953421231, 1125899906842597, 2251799813685119, 4503599627370449,
	9007199254740881, 18014398509481951, 36028797018963913, 72057594037927931,
	144115188075855859, 288230376151711717, 576460752303423433,
	1152921504606846883, 2305843009213693951, 4611686018427387847,
	9223372036854775783, 18446744073709551557,
}

// hashBytes is libstdc++'s std::_Hash_bytes for 64-bit targets, with the
// seed of std::hash<std::string>.
func hashBytes(b []byte) uint64 {
	const mul = 0xc6a4a7935bd1e995
	const seed = 0xc70f6907
	shiftMix := func(v uint64) uint64 { return v ^ (v >> 47) }
	h := seed ^ (uint64(len(b)) * mul)
	aligned := len(b) &^ 7
	for i := 0; i < aligned; i += 8 {
		h ^= shiftMix(binary.LittleEndian.Uint64(b[i:])*mul) * mul
		h *= mul
	}
	if rest := b[aligned:]; len(rest) > 0 {
		var data uint64
		for i := len(rest) - 1; i >= 0; i-- {
			data = data<<8 | uint64(rest[i])
		}
		h ^= data
		h *= mul
	}
	return shiftMix(shiftMix(h) * mul)
}
