package timeseries

import "bytes"

// LabelChanges are the writes that replace a series's labels old with
// labels (both sorted by name, as Options and the label subkeys hold
// them): label subkeys to put or delete, and the entries of the index
// column family (AppendIndexKey) to put or delete, for the series key
// in namespace ns.
func LabelChanges(ns string, key []byte, old, labels []Label) (subkeys []Change, index []Change) {
	i, j := 0, 0
	for i < len(old) || j < len(labels) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case j == len(labels):
			c = -1
		default:
			c = bytes.Compare(old[i].Name, labels[j].Name)
		}
		switch {
		case c < 0: // dropped
			subkeys = append(subkeys, Change{Subkey: AppendLabelSubkey(nil, old[i].Name), Delete: true})
			index = append(index, Change{Subkey: AppendIndexKey(nil, ns, old[i].Name, old[i].Value, key), Delete: true})
			i++
		case c > 0: // added
			subkeys = append(subkeys, Change{Subkey: AppendLabelSubkey(nil, labels[j].Name), Value: labels[j].Value})
			index = append(index, Change{Subkey: AppendIndexKey(nil, ns, labels[j].Name, labels[j].Value, key), Value: []byte{}})
			j++
		default:
			if !bytes.Equal(old[i].Value, labels[j].Value) {
				subkeys = append(subkeys, Change{Subkey: AppendLabelSubkey(nil, labels[j].Name), Value: labels[j].Value})
				index = append(index,
					Change{Subkey: AppendIndexKey(nil, ns, old[i].Name, old[i].Value, key), Delete: true},
					Change{Subkey: AppendIndexKey(nil, ns, labels[j].Name, labels[j].Value, key), Value: []byte{}})
			}
			i, j = i+1, j+1
		}
	}
	return subkeys, index
}

// DecodeLabel parses a label subkey (after the key's version) and its
// value; the label copies them.
func DecodeLabel(sub, value []byte) (Label, error) {
	name, err := ParseLabelSubkey(sub)
	if err != nil {
		return Label{}, err
	}
	return Label{Name: bytes.Clone(name), Value: bytes.Clone(value)}, nil
}
