// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Plain I2C transfers (the I2C_RDWR ioctl) for the kernel's i2c-stub.
 *
 * The kernel's i2c-stub answers SMBus calls only: an I2C_RDWR transfer to it fails with
 * EOPNOTSUPP, because the I2C core hands plain I2C messages to an adapter's master_xfer,
 * which i2c-stub does not have. Amble's chip drivers read registers with I2C_RDWR, so
 * scripts/hil builds a second copy of i2c-stub (module "amble-i2c-stub", from the
 * drivers/i2c/i2c-stub.c of Debian's linux-source package, fetched at run time) with this
 * function appended and hooked in as master_xfer. SMBus calls and I2C messages then reach
 * the same register file.
 *
 * It behaves like the register file of a typical sensor: the first byte of a write message
 * sets the register pointer and further bytes are stored from there on; a read message
 * reads from the pointer; the pointer advances by one per byte and wraps at 0xff. An
 * address no emulated chip has is not acknowledged (-ENXIO, as the kernel's
 * Documentation/i2c/fault-codes.rst asks of adapters).
 */
static int amble_stub_master_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	int m, i;

	for (m = 0; m < num; m++) {
		struct i2c_msg *msg = &msgs[m];
		struct stub_chip *chip = NULL;

		for (i = 0; i < stub_chips_nr; i++) {
			if (msg->addr == chip_addr[i]) {
				chip = stub_chips + i;
				break;
			}
		}
		if (!chip)
			return -ENXIO;
		if (msg->flags & I2C_M_TEN)
			return -EOPNOTSUPP;

		if (msg->flags & I2C_M_RD) {
			for (i = 0; i < msg->len; i++)
				msg->buf[i] = *stub_get_wordp(chip, chip->pointer++) & 0xff;
			dev_dbg(&adap->dev, "i2c read - addr 0x%02x, %d bytes\n", msg->addr, msg->len);
		} else if (msg->len > 0) {
			chip->pointer = msg->buf[0];
			for (i = 1; i < msg->len; i++) {
				u16 *wordp = stub_get_wordp(chip, chip->pointer++);

				*wordp = (*wordp & 0xff00) | msg->buf[i];
			}
			dev_dbg(&adap->dev, "i2c write - addr 0x%02x, %d bytes\n", msg->addr, msg->len);
		}
	}
	return num;
}
