/* TEST STAND-IN, not Microsoft's header: only the D3D12 resource type DirectML.h names. */
#ifndef __d3d12_h__
#define __d3d12_h__
interface ID3D12Resource;
#endif
