#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the shell initramfs (make run-linux): busybox's applets as commands, /proc, /sys
# and /dev, then a shell on the console. `poweroff -f` powers the VM off (PSCI SYSTEM_OFF).
/bin/busybox mkdir -p /proc /sys /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s /bin
export PATH=/bin
echo "perfvisor: a shell on /dev/console; poweroff -f ends this VM"
exec setsid cttyhack sh
