"""msprobe.mindspore.common: MsprobeStep lives in msprobe.mindspore.common.utils."""
