/* expect: bitfield.c:7: vmcc refuses: bit-field 'high' */
struct flags { unsigned low : 3, high : 5; };
struct flags f;

int main(void)
{
    f.high = 2;
    return f.low;
}
