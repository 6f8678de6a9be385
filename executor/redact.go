package executor

// redactedArg is what is shown instead of a secret.
var redactedArg = []byte("(redacted)")

// redacted returns args with the command's secrets replaced; args itself
// when it has none. The result may share args' elements.
func redacted(cmd *Command, args [][]byte) [][]byte {
	if cmd == nil || cmd.Secret == nil {
		return args
	}
	var out [][]byte
	for i := 1; i < len(args); i++ {
		if !cmd.Secret(args, i) {
			continue
		}
		if out == nil {
			out = append([][]byte(nil), args...)
		}
		out[i] = redactedArg
	}
	if out == nil {
		return args
	}
	return out
}
