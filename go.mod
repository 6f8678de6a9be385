module github.com/basaltdb/basalt

go 1.26.8

require github.com/linxGnu/grocksdb v1.7.15

require github.com/stretchr/testify v1.12.1 // indirect
