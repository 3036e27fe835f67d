// libi2c-dev (Debian 12) has no pkg-config file; its header is <i2c/smbus.h>.
// <linux/i2c-dev.h> brings I2C_SLAVE, I2C_RDWR and struct i2c_rdwr_ioctl_data;
// <linux/i2c.h> brings struct i2c_msg and I2C_M_RD.
#include <linux/types.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
