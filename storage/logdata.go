package storage

import (
	"strconv"

	"github.com/basaltdb/basalt/metadata"
)

// Every batch a command writes starts with the LogData record Kvrocks's
// WriteBatchLogData writes for the same command (FORMAT.md §8.3): the
// number of the Redis type it changes and, for lists and expiry, the
// command's number and arguments, separated by spaces. Kvrocks replicas
// and WAL readers (POLLUPDATES, kvrocks2redis) thus see what a Kvrocks
// node writes. Writes that are not a command's (flushes, slot deletions,
// propagated records) carry none, as in Kvrocks.

// LogData is the blob of a LogData record; nil writes none.
type LogData []byte

// LogCommand is Kvrocks's number of a command in a LogData record
// (RedisCommand in redis_metadata.h): written for lists, expiry and
// bitmaps only.
type LogCommand int

// Kvrocks's command numbers.
const (
	LogLSet     LogCommand = 0
	LogLInsert  LogCommand = 1
	LogLTrim    LogCommand = 2
	LogLPop     LogCommand = 3
	LogRPop     LogCommand = 4
	LogLRem     LogCommand = 5
	LogLPush    LogCommand = 6
	LogRPush    LogCommand = 7
	LogExpire   LogCommand = 8
	LogSetBit   LogCommand = 9
	LogBitOp    LogCommand = 10
	LogBitField LogCommand = 11
	LogLMove    LogCommand = 12
	// LogNoCommand: the record names a type only.
	LogNoCommand LogCommand = -1
)

// typeLogs is the LogData of a write to a key of each type: its number.
var typeLogs = func() (out [metadata.TypeHyperLogLog + 1]LogData) {
	for t := range out {
		out[t] = LogData(strconv.Itoa(t))
	}
	return out
}()

// Fixed records: a deletion (DEL, UNLINK: type none) and an expiry change
// (EXPIRE and the rest, PERSIST).
var (
	logDelete      = typeLogs[metadata.TypeNone]
	logExpireWrite = LogData("0 " + strconv.Itoa(int(LogExpire)))
)

// TypeLog returns the LogData of a write to a key of type t.
func TypeLog(t metadata.Type) LogData {
	if int(t) < len(typeLogs) {
		return typeLogs[t]
	}
	return LogData(strconv.Itoa(int(t)))
}

// listLog returns the LogData of list command cmd with its arguments.
func listLog(cmd LogCommand, args ...string) LogData {
	b := strconv.AppendInt([]byte(strconv.Itoa(int(metadata.TypeList))+" "), int64(cmd), 10)
	for _, a := range args {
		b = append(b, ' ')
		b = append(b, a...)
	}
	return b
}

// side names a list end as Kvrocks logs it.
func side(left bool) string {
	if left {
		return "left"
	}
	return "right"
}

// The LogData of pushes and pops, which Kvrocks logs without arguments.
var (
	logLeftPush  = listLog(LogLPush)
	logRightPush = listLog(LogRPush)
	logLeftPop   = listLog(LogLPop)
	logRightPop  = listLog(LogRPop)
)

func pushLog(left bool) LogData {
	if left {
		return logLeftPush
	}
	return logRightPush
}

func popLog(left bool) LogData {
	if left {
		return logLeftPop
	}
	return logRightPop
}

// boolDigit is how Kvrocks logs a flag (LINSERT's BEFORE).
func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
