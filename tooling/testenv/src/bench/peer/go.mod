module kfx.dev/bench/peer

go 1.22
