package replication

import "fmt"

// fullSync fetches a checkpoint of the master and swaps it in.
func (r *Replica) fullSync() error {
	r.setState(StateFetchMeta)
	return fmt.Errorf("%w: full sync is not supported yet", errRestart)
}
