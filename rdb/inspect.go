package rdb

// QuicklistSizes reads what DEBUG OBJECT shows of a list from its DUMP
// payload (as Encode writes it, a quicklist of nodes): the number of
// nodes, and the bytes of their listpacks (a plain node's element's).
// ok is false for any other payload.
func QuicklistSizes(payload []byte) (nodes, bytes int, ok bool) {
	if len(payload) < footerSize+1 || payload[0] != typeListQuicklist2 {
		return 0, 0, false
	}
	r := &reader{src: &memSource{b: payload[1 : len(payload)-footerSize]}}
	n, err := r.count(2)
	if err != nil {
		return 0, 0, false
	}
	for range n {
		if _, err := r.plainLength(); err != nil {
			return 0, 0, false
		}
		s, err := r.string()
		if err != nil {
			return 0, 0, false
		}
		bytes += len(s)
	}
	return n, bytes, true
}
