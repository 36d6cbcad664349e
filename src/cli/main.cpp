#include <iostream>
int main() { std::cout << "swat-gpu 0.1.0\n"; return 0; }
