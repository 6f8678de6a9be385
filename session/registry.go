package session

import (
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/reply"
)

// Render turns the reply values write produces into the bytes of protocol
// proto (2 or 3). The server supplies it: only the server renders bytes.
type Render func(proto int, write func(reply.Sink)) []byte

// Registry is the server-wide state of the sessions.
type Registry struct {
	cfg    *config.Config
	render Render
	sessions

	PubSub   PubSub
	Monitors Monitors
	Watches  Watches
	Blocking Blocking
	Pause    Pause
	Slowlog  Slowlog
	Tracking Tracking
}

// NewRegistry returns an empty registry of sessions configured by cfg,
// whose pushes render is asked to render.
func NewRegistry(cfg *config.Config, render Render) *Registry {
	r := &Registry{cfg: cfg, render: render}
	r.sessions.byID = map[int64]*Session{}
	return r
}
