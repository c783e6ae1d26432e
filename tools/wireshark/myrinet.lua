-- myrinet.lua -- Wireshark/tshark dissector for the captures of `myri run --pcap`.
--
-- Link type DLT_USER0 (147).  Each record: an 8-byte pseudo-header (channel,
-- big-endian u32; flags u8, bit 0 = truncated on this channel; the run's
-- packet.type_bytes u8; its packet.crc_poly u8; one zero byte),
-- then the packet's bytes as they were on that channel: the source-route
-- bytes still ahead (MSB 1), the packet type (MSB of its first byte 0; 4 bytes
-- by default, `packet.type_bytes`), the payload, and the CRC-8 trailer.  The
-- CRC (polynomial `packet.crc_poly`, 0x07 by default; no initial value, no
-- final XOR) over all the packet's bytes, trailer included, is 0 for an
-- undamaged packet on every hop (docs/FABRIC.md).  The type length and the
-- polynomial are read from each record; the preferences below are used only
-- for captures that predate those bytes (byte 5 zero).
--
-- Use:  tshark -X lua_script:tools/wireshark/myrinet.lua -r out.pcap -V
--       wireshark -X lua_script:tools/wireshark/myrinet.lua out.pcap
local p = Proto("myrinet", "Myrinet packet (Myri simulation)")
p.prefs.type_bytes = Pref.uint("Type length (bytes)", 4,
  "packet.type_bytes (2 or 4), for old captures without it in the pseudo-header")
p.prefs.crc_poly = Pref.uint("CRC-8 polynomial", 7,
  "packet.crc_poly, for old captures without it in the pseudo-header")

local f_channel = ProtoField.uint32("myrinet.channel", "Channel", base.DEC)
local f_trunc = ProtoField.bool("myrinet.truncated", "Truncated on this channel")
local f_tbytes = ProtoField.uint8("myrinet.type_bytes", "Type length (packet.type_bytes)", base.DEC)
local f_poly = ProtoField.uint8("myrinet.crc_poly", "CRC-8 polynomial (packet.crc_poly)", base.HEX)
local f_route = ProtoField.uint8("myrinet.route", "Route byte", base.HEX)
local f_port = ProtoField.uint8("myrinet.route.port", "Output port (absolute addressing)", base.DEC)
local f_type = ProtoField.uint32("myrinet.type", "Type", base.HEX)
local f_payload = ProtoField.bytes("myrinet.payload", "Payload")
local f_len = ProtoField.uint32("myrinet.payload_len", "Payload length", base.DEC)
local f_crc = ProtoField.uint8("myrinet.crc", "CRC-8 trailer", base.HEX)
local f_crc_ok = ProtoField.bool("myrinet.crc_ok", "CRC good")
p.fields = { f_channel, f_trunc, f_tbytes, f_poly, f_route, f_port, f_type, f_payload, f_len, f_crc, f_crc_ok }

-- Lua 5.2 (Wireshark 4.0) has no ~ operator: XOR through bit32 or BitOp.
local bxor = (bit32 and bit32.bxor) or bit.bxor

local function crc_table(poly)
  local t = {}
  for b = 0, 255 do
    local r = b
    for _ = 1, 8 do
      if r >= 0x80 then r = bxor((r * 2) % 256, poly) else r = (r * 2) % 256 end
    end
    t[b] = r
  end
  return t
end

function p.dissector(buf, pinfo, tree)
  if buf:len() < 8 then return 0 end
  pinfo.cols.protocol = "Myrinet"
  local t = tree:add(p, buf(), "Myrinet packet")
  t:add(f_channel, buf(0, 4))
  t:add(f_trunc, buf(4, 1):uint() % 2 == 1)
  local n, i = buf:len(), 8
  local hops = 0
  while i < n - 1 and buf(i, 1):uint() >= 0x80 do
    local rt = t:add(f_route, buf(i, 1))
    rt:add(f_port, buf(i, 1), buf(i, 1):uint() - 0x80)
    i, hops = i + 1, hops + 1
  end
  local tb, poly = p.prefs.type_bytes, p.prefs.crc_poly
  if buf(5, 1):uint() ~= 0 then
    tb, poly = buf(5, 1):uint(), buf(6, 1):uint()
    t:add(f_tbytes, buf(5, 1))
    t:add(f_poly, buf(6, 1))
  end
  local info = string.format("ch %d, %d route byte(s)", buf(0, 4):uint(), hops)
  if i + tb < n then
    t:add(f_type, buf(i, tb))
    local plen = n - 1 - (i + tb)
    t:add(f_len, plen)
    if plen > 0 then t:add(f_payload, buf(i + tb, plen)) end
    info = info .. string.format(", type 0x%x, %d payload bytes", buf(i, tb):uint(), plen)
  end
  t:add(f_crc, buf(n - 1, 1))
  local tab, crc = crc_table(poly), 0
  for k = 8, n - 1 do crc = bxor(tab[crc], buf(k, 1):uint()) end
  t:add(f_crc_ok, crc == 0)
  if crc ~= 0 then info = info .. ", BAD CRC" end
  if buf(4, 1):uint() % 2 == 1 then info = info .. ", truncated" end
  pinfo.cols.info = info
  return n
end

DissectorTable.get("wtap_encap"):add(wtap_encaps and wtap_encaps.USER0 or wtap.USER0, p)
