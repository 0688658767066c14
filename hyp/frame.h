/* SPDX-License-Identifier: MIT */
/* Offsets in struct frame (hyp.h) of what the assembly saves and restores by name; hyp.h
 * checks them against the structure. Included by C and by assembly. */
#ifndef HYP_FRAME_H
#define HYP_FRAME_H

#define FRAME_X30 240  /* x[30]: 30 * 8 */
#define FRAME_ELR 248  /* 31 * 8 */
#define FRAME_SPSR 256 /* 32 * 8 */

#endif
